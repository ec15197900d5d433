internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a network output is connected: the protocols its address may use, how long any read or
/// write may wait (a server that stops answering ends the run instead of hanging it), and the flag
/// that interrupts a blocked call when the run is cancelled.
struct NetworkConnection {
    let output: NetworkOutput
    /// The longest any connect, read or write may wait.
    let timeout: Duration
    /// How a TLS connection checks the server's certificate.
    let certificates: CertificateCheck
    let interrupt: InterruptFlag
    /// What FFmpeg logged about this connection alone (its writes run in `log.attributing`): a
    /// muxer's own requests (an upload's segments) fail with a bare EIO, and a refused
    /// certificate counted here says why — whatever other jobs of the process do meanwhile.
    let log = ConnectionLog()

    init(output: NetworkOutput, timeout: Duration, certificates: CertificateCheck, interrupt: InterruptFlag) {
        (self.output, self.timeout, self.certificates, self.interrupt) = (output, timeout, certificates, interrupt)
    }

    /// The protocol options given to `avio_open2` (the hls muxer gets its own, see `HLSOptions`).
    var protocolOptions: [String: String] {
        var options = ["protocol_whitelist": output.scheme.whitelist, "rw_timeout": "\(microseconds)"]
        // SRT's live mode drops what is unacknowledged when the socket closes (the stream's last
        // half second): closing waits for it, up to 5 s.
        if output.scheme == .srt { options["linger"] = "\(min(max(microseconds / 1_000_000, 1), 5))" }
        options.merge(tlsOptions) { $1 }
        return options
    }

    /// What a TLS connection is told about checking the server's certificate; nothing without TLS.
    var tlsOptions: [String: String] {
        output.scheme.usesTLS ? certificates.tlsOptions() : [:]
    }

    /// `timeout` in microseconds, FFmpeg's unit for it.
    var microseconds: Int64 {
        let (seconds, attoseconds) = timeout.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// What a failed connect, write or request of this connection means, in words (see the static
    /// `describe`), or that a server's certificate was refused since the connection was made.
    func describe(_ code: Int32, reason: String?) -> String {
        if log.certificateRefusals > 0, !NetworkAddress.isCertificateRefusal(reason) {
            return Self.describe(code, reason: "certificate refused (\(ffmpegErrorText(code)))")
        }
        return Self.describe(code, reason: reason)
    }

    /// What a failed connect or write means, in words: FFmpeg's message, and its log's reason when
    /// it gave one (an RTMP server's refusal of the stream name).
    static func describe(_ code: Int32, reason: String?) -> String {
        let text: String
        switch avp_errno_of(code) {
        case ECONNREFUSED: text = "connection refused (is the server running, and listening on that port?)"
        case ETIMEDOUT: text = "timed out (the server did not answer)"
        case _ where NetworkAddress.isCertificateRefusal(reason): text = CertificateCheck.advice
        case EPIPE, ECONNRESET: text = "the server closed the connection (\(ffmpegErrorText(code)))"
        default: text = ffmpegErrorText(code)
        }
        guard let reason, !reason.isEmpty, !text.contains(reason) else { return text }
        return "\(text): \(reason.trimmingCharacters(in: " \n"))"
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
