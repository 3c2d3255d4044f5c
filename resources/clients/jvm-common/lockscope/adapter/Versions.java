// The version of a library on the classpath, as its own jar says (Maven's pom.properties inside it): what the
// hello and `lockscope-cli clients` report, whatever the pom.xml asked for.
package lockscope.adapter;

import java.io.InputStream;
import java.util.Properties;

public final class Versions {
    private Versions() {
    }

    /** The version in the jar that holds `anchor`, e.g. of("org.redisson", "redisson") gives "4.7.0". */
    public static String of(Class<?> anchor, String group, String artifact) {
        String path = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = anchor.getClassLoader().getResourceAsStream(path)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isEmpty()) {
                    return version;
                }
            }
        } catch (java.io.IOException e) {
            // fall through to the manifest
        }
        String version = anchor.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }
}
