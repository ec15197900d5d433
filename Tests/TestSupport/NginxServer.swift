import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private nginx on 127.0.0.1 for network tests, started in a prefix of its own with a generated
/// configuration and stopped on deinit: an HTTP root (`root`, served at `httpURL`), a WebDAV
/// location taking PUT and DELETE (`uploads`, at `uploadURL`), and with Debian's
/// `libnginx-mod-rtmp` two RTMP applications, `live` (relays what is pushed to pullers) and
/// `record` (writes each stream it receives as FLV into `recordings`). With `tlsServers: n`, n HTTPS
/// servers of the same root and upload location, each with a self-signed certificate of its own
/// for 127.0.0.1 (`certificate(i)`, made with `openssl`), at `httpsURL(path, server: i)`.
public final class NginxServer: @unchecked Sendable {
    /// The prefix folder: configuration, logs, and the served folders.
    public let prefix: TemporaryDirectory
    public let httpPort: UInt16
    public let rtmpPort: UInt16
    /// The HTTPS servers' ports.
    public let httpsPorts: [UInt16]
    private let process: Process

    /// What files are served from.
    public var root: String { prefix.file("www") }
    /// Where PUT uploads land (served back at the same URL).
    public var uploads: String { prefix.file("www/upload") }
    /// Where the `record` application writes what it receives (`NAME.flv`).
    public var recordings: String { prefix.file("recordings") }
    /// The HTTP access log: one line per request, with its path and status.
    public var accessLog: String { (try? String(contentsOfFile: prefix.file("logs/access.log"), encoding: .utf8)) ?? "" }

    /// `http://127.0.0.1:PORT/PATH` for a file under `root`.
    public func httpURL(_ path: String) -> String { "http://127.0.0.1:\(httpPort)/\(path)" }
    /// `http://127.0.0.1:PORT/upload/PATH`, where PUT writes under `uploads`.
    public func uploadURL(_ path: String) -> String { "http://127.0.0.1:\(httpPort)/upload/\(path)" }
    /// `https://127.0.0.1:PORT/PATH` of HTTPS server `server`.
    public func httpsURL(_ path: String, server: Int = 0) -> String { "https://127.0.0.1:\(httpsPorts[server])/\(path)" }
    /// HTTPS server `server`'s self-signed certificate (PEM), the authority a client must trust.
    public func certificate(_ server: Int = 0) -> String { prefix.file("tls/\(server).crt") }
    /// `rtmp://127.0.0.1:PORT/APPLICATION/NAME` (`live` or `record`).
    public func rtmpURL(_ application: String, _ name: String) -> String { "rtmp://127.0.0.1:\(rtmpPort)/\(application)/\(name)" }

    /// Why the server cannot run here; nil when nginx and its RTMP module are installed.
    public static var missingTool: String? {
        if !FileManager.default.isExecutableFile(atPath: nginx) { return "nginx is not installed (scripts/setup.sh)" }
        if rtmpModule == nil { return "libnginx-mod-rtmp is not installed (scripts/setup.sh)" }
        return nil
    }

    static let nginx = "/usr/sbin/nginx"
    static var rtmpModule: String? {
        ["/usr/lib/nginx/modules/ngx_rtmp_module.so", "/usr/share/nginx/modules/ngx_rtmp_module.so"]
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Starts the server; throws when it is not installed or does not come up within 10 s.
    /// `httpLocations` goes into the HTTP server block as is (extra `location` blocks: a redirect
    /// loop, a slow answer).
    public static func started(httpLocations: String = "", tlsServers: Int = 0) throws -> NginxServer {
        if let missingTool { throw TestFailure(missingTool) }
        // Ports picked free now and given to nginx; a clash with another test in between makes
        // nginx fail to bind, so a few attempts are made.
        var lastError: Error?
        for _ in 0..<5 {
            do {
                return try NginxServer(httpPort: try freePort(), rtmpPort: try freePort(), httpsPorts: (0..<tlsServers).map { _ in try freePort() },
                                       httpLocations: httpLocations)
            } catch { lastError = error }
        }
        throw lastError!
    }

    private init(httpPort: UInt16, rtmpPort: UInt16, httpsPorts: [UInt16] = [], httpLocations: String) throws {
        self.httpPort = httpPort
        self.rtmpPort = rtmpPort
        self.httpsPorts = httpsPorts
        prefix = TemporaryDirectory("avpipe-nginx")
        for folder in ["www/upload", "recordings", "logs", "temp", "tls"] {
            try FileManager.default.createDirectory(atPath: prefix.file(folder), withIntermediateDirectories: true)
        }
        let uploadLocation = """
            location /upload/ {
                dav_methods PUT DELETE;
                create_full_put_path on;
                dav_access user:rw group:r all:r;
            }
            """
        var tlsBlocks = ""
        for (index, port) in httpsPorts.enumerated() {
            let key = prefix.file("tls/\(index).key"), certificate = prefix.file("tls/\(index).crt")
            let made = try Subprocess.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                       "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                                                       "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
            guard made.status == 0 else { throw TestFailure("openssl could not make a certificate: \(made.stderrText)") }
            tlsBlocks += """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    root \(prefix.file("www"));
                    \(uploadLocation)
                }

                """
        }
        let config = """
            load_module \(Self.rtmpModule!);
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(prefix.file("logs/error.log")) info;
            pid \(prefix.file("logs/nginx.pid"));
            events { worker_connections 256; }
            http {
                access_log \(prefix.file("logs/access.log"));
                client_body_temp_path \(prefix.file("temp/body"));
                proxy_temp_path \(prefix.file("temp/proxy"));
                fastcgi_temp_path \(prefix.file("temp/fastcgi"));
                uwsgi_temp_path \(prefix.file("temp/uwsgi"));
                scgi_temp_path \(prefix.file("temp/scgi"));
                types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; audio/mp4 m4a; text/html html; }
                default_type application/octet-stream;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(httpPort);
                    root \(prefix.file("www"));
                    add_header Access-Control-Allow-Origin *;
                    \(uploadLocation)
                    \(httpLocations)
                }
                \(tlsBlocks)
            }
            rtmp {
                server {
                    listen 127.0.0.1:\(rtmpPort);
                    chunk_size 4096;
                    application live { live on; record off; }
                    application record { live on; record all; record_path \(prefix.file("recordings")); record_unique off; }
                }
            }
            """
        try config.write(toFile: prefix.file("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.nginx)
        process.arguments = ["-p", prefix.path, "-c", prefix.file("nginx.conf"), "-e", prefix.file("logs/error.log")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !(Self.accepts(httpPort) && Self.accepts(rtmpPort) && httpsPorts.allSatisfy(Self.accepts)) {
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { process.terminate() }
                let log = (try? String(contentsOfFile: prefix.file("logs/error.log"), encoding: .utf8)) ?? ""
                throw TestFailure("nginx did not start: \(log.suffix(600))")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// A new server on this one's ports (after `kill()` or `stop()`), as a server restarting
    /// looks to a client; it has a prefix, uploads and recordings of its own.
    public func startedAgain() throws -> NginxServer {
        try NginxServer(httpPort: httpPort, rtmpPort: rtmpPort, httpLocations: "")
    }

    /// Stops the server (SIGKILL: what a server dying mid-stream looks like to a client).
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server gracefully (SIGQUIT: finishes what it is writing, as `nginx -s quit`).
    public func stop() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGQUIT)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        kill()
    }

    /// Writes `data` under `root` at `path` (folders made as needed), to be served.
    public func serve(_ data: Data, at path: String) throws {
        let file = URL(fileURLWithPath: root).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// Copies the file at `source` under `root` at `path`, to be served.
    public func serveFile(_ source: String, at path: String) throws {
        try serve(try Data(contentsOf: URL(fileURLWithPath: source)), at: path)
    }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on at this moment.
public func freePort() throws -> UInt16 {
    let listener = try LoopbackListener()
    return listener.port
}
