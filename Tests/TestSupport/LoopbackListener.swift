import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 (a free port), to prove that nothing connected: a test
/// points a crafted input at `url`, runs the code under test, then asks `connectionArrived`.
public final class LoopbackListener {
    public let port: UInt16
    private let socketFD: Int32

    public init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socketFD = socketFD
        guard socketFD >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socketFD, pointer, length) == 0 && listen(socketFD, 16) == 0
                    && getsockname(socketFD, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind/listen: \(errno)") }
        port = UInt16(bigEndian: address.sin_port)
        _ = fcntl(socketFD, F_SETFL, fcntl(socketFD, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(socketFD) }

    public func url(_ path: String = "x.ts") -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Whether any client connected since the listener opened (accepts them all, without waiting).
    public var connectionArrived: Bool {
        var arrived = false
        while true {
            let client = accept(socketFD, nil, nil)
            guard client >= 0 else { return arrived }
            arrived = true
            close(client)
        }
    }
}
