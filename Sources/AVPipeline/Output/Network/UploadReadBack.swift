internal import CFFmpeg

/// Checks an HLS stream uploaded with HTTP PUT by reading it back from the server. FFmpeg's HTTP
/// writer does not look at the server's answer to a PUT (a 403 or 405 gives exit 0 and nothing
/// stored), so the upload counts as done only when the server serves the playlist, complete
/// (ending, for VOD), and every segment it names, not empty, the segments together at least as
/// large as the media written into them — what `HLSFolder.verify` checks on disk.
struct UploadReadBack {
    let output: NetworkOutput
    let timeout: Duration
    let certificates: CertificateCheck
    let interrupt: InterruptFlag

    func verify(live: Bool, payloadBytes: Int) throws(AVPipelineError) {
        let playlist = try read(output.url, limit: 4 << 20)
        let lines = String(decoding: playlist, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        if !live && !lines.contains("#EXT-X-ENDLIST") {
            throw .outputWriteFailed(path: output.url, reason: "the server holds a playlist that was cut short (an upload failed)")
        }
        var total: Int64 = 0
        for name in lines where !name.hasPrefix("#") && !name.isEmpty {
            // The muxer names the segments relative to the playlist.
            let size = try self.size("\(output.base)/\(name)")
            guard size > 0 else {
                throw .outputWriteFailed(path: output.url, reason: "the server holds segment '\(name)' empty (its upload failed)")
            }
            total += size
        }
        if !live && total < Int64(payloadBytes) {
            throw .outputWriteFailed(path: output.url, reason: "the segments on the server hold less than the media written into them (an upload failed)")
        }
    }

    /// The body of `url`, at most `limit` bytes.
    private func read(_ url: String, limit: Int) throws(AVPipelineError) -> [UInt8] {
        let context = try open(url)
        defer { var pointer: UnsafeMutablePointer<AVIOContext>? = context; avio_closep(&pointer) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
            if count == avp_error_eof() || count == 0 { break }
            if count < 0 {
                if interrupt.isRaised { throw .cancelled }
                throw .outputWriteFailed(path: output.url, reason: "reading the upload back from \(url) failed: \(ffmpegErrorText(count))")
            }
            bytes += chunk[..<Int(count)]
        }
        return bytes
    }

    /// The length the server gives for `url` (its Content-Length).
    private func size(_ url: String) throws(AVPipelineError) -> Int64 {
        let context = try open(url)
        defer { var pointer: UnsafeMutablePointer<AVIOContext>? = context; avio_closep(&pointer) }
        return avio_size(context)
    }

    private func open(_ url: String) throws(AVPipelineError) -> UnsafeMutablePointer<AVIOContext> {
        let connection = NetworkConnection(output: output, timeout: timeout, certificates: certificates, interrupt: interrupt)
        var callback = interrupt.callback
        var context: UnsafeMutablePointer<AVIOContext>? = nil
        let rc = try withDictionary(connection.protocolOptions, rejectingUnused: false) { options in
            connection.log.attributing { avio_open2(&context, url, avp_avio_flag_read(), &callback, options) }
        }
        guard rc >= 0, let context else {
            if interrupt.isRaised { throw .cancelled }
            throw .outputWriteFailed(path: output.url, reason: "the server does not serve back what was uploaded (\(url): \(connection.describe(rc, reason: nil))); FFmpeg does not report a refused PUT, so avpipe reads the upload back")
        }
        return context
    }
}
