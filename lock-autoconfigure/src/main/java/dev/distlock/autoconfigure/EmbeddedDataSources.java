package dev.distlock.autoconfigure;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;

/**
 * Tells whether a {@link DataSource} is an embedded database (H2, HSQLDB or Derby in
 * memory) from its type and its JDBC URL, without connecting to it: a Spring
 * {@link EmbeddedDatabase} is one, and so is a pool or driver data source whose
 * {@code jdbcUrl} or {@code url} property is an embedded database's URL, as Spring Boot's
 * {@link EmbeddedDatabaseConnection} knows them. A data source that shows neither counts
 * as a server database.
 */
final class EmbeddedDataSources {

	private static final String[] URL_PROPERTIES = { "jdbcUrl", "url" };

	private EmbeddedDataSources() {
	}

	/**
	 * Return whether a data source is an embedded database, without connecting to it.
	 * @param dataSource the data source
	 * @return {@code true} for an embedded database
	 */
	static boolean isEmbedded(DataSource dataSource) {
		if (DataSourceUnwrapper.unwrap(dataSource, EmbeddedDatabase.class) != null) {
			return true;
		}
		String url = jdbcUrlOf(DataSourceUnwrapper.unwrapRoot(dataSource));
		return url != null
				&& EmbeddedDatabaseConnection.isEmbedded(DatabaseDriver.fromJdbcUrl(url).getDriverClassName(), url);
	}

	private static @Nullable String jdbcUrlOf(DataSource dataSource) {
		BeanWrapper properties = new BeanWrapperImpl(dataSource);
		for (String property : URL_PROPERTIES) {
			if (properties.isReadableProperty(property)
					&& properties.getPropertyValue(property) instanceof String url) {
				return url;
			}
		}
		return null;
	}

}
