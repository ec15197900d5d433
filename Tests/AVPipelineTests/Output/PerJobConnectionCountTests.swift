import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// What FFmpeg's log says about a connection is counted for the job that owns it: two inputs
/// read at once from one process, only one of whose connections drops, each get their own count.
@Suite struct PerJobConnectionCountTests {
    @Test(.enabled(if: Subprocess.isAvailable("python3"), "needs python3 for a server that drops a connection"))
    func onlyTheInputThatReconnectedCountsIt() async throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.ts"), seconds: 3, size: "320x240", audio: false)
        let script = folder.file("server.py"), portFile = folder.file("port")
        try Data(Self.server.utf8).write(to: URL(fileURLWithPath: script))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", script, movie, portFile]
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        var port = ""
        for _ in 0..<100 where port.isEmpty {
            usleep(50_000)
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
        }
        try #require(!port.isEmpty, "the server did not start")
        let processBefore = FFmpegLog.reconnections

        let dropping = try Demuxer(url: "http://127.0.0.1:\(port)/drop/m.ts")
        let steady = try Demuxer(url: "http://127.0.0.1:\(port)/steady/m.ts")
        async let droppingPictures = Self.pictures(dropping)
        async let steadyPictures = Self.pictures(steady)
        let (a, b) = try await (droppingPictures, steadyPictures)
        let expected = try Subprocess.run("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                                                      "stream=nb_read_packets", "-of", "csv=p=0", movie]).stdoutText
        #expect("\(a)" == expected.split(separator: "\n").first.map(String.init), "the dropped input is read whole")
        #expect(a == b)
        #expect(dropping.reconnections >= 1)
        #expect(steady.reconnections == 0)
        // The process-wide count saw the same reconnections (and perhaps other tests').
        #expect(FFmpegLog.reconnections - processBefore >= dropping.reconnections)
    }

    private static func pictures(_ demuxer: Demuxer) async throws -> Int {
        let track = try demuxer.videoTrack()
        var count = 0
        while try await track.next() != nil { count += 1 }
        return count
    }

    /// Serves one file at any path over HTTP; a whole-file request whose path has "drop" in it is
    /// cut halfway through the body. Range requests are answered (206), so FFmpeg's reconnect gets the rest.
    static let server = #"""
        import socket, sys, threading
        path, port_file = sys.argv[1], sys.argv[2]
        data = open(path, 'rb').read()
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0)); server.listen(8)
        open(port_file, "w").write(str(server.getsockname()[1]))
        def handle(c):
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = c.recv(4096)
                if not chunk: c.close(); return
                request += chunk
            start = 0
            for line in request.decode("latin-1").split("\r\n"):
                if line.lower().startswith("range: bytes="):
                    start = int(line.split("=")[1].split("-")[0] or 0)
            body = data[start:]
            status = "206 Partial Content" if start else "200 OK"
            headers = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nAccept-Ranges: bytes\r\nContent-Type: video/mp2t\r\n"
            if start: headers += f"Content-Range: bytes {start}-{len(data)-1}/{len(data)}\r\n"
            c.sendall((headers + "Connection: close\r\n\r\n").encode())
            first_line = request.split(b"\r\n")[0]
            if start == 0 and len(body) > 16384 and first_line.startswith(b"GET") and b"drop" in first_line:
                c.sendall(body[:len(body)//2]); c.shutdown(socket.SHUT_RDWR); c.close(); return
            c.sendall(body); c.close()
        while True:
            conn, _ = server.accept()
            threading.Thread(target=handle, args=(conn,), daemon=True).start()
        """#
}
