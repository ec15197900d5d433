internal import CFFmpeg

/// Reads a remote HLS playlist before its demuxer does, and refuses it when it names anything
/// not read through the playlist's own protocols: `file:` URLs, `data:`, other schemes.
///
/// FFmpeg's HLS demuxer already refuses most of these itself (a `file:` segment without a media
/// extension, `data:`, unknown protocols), but quietly: it skips the segment and carries on, and
/// what it does open goes through `NestedOpenGuard`. Checking the names first turns each of them
/// into one typed error naming what the playlist asked for, before anything of it is read.
/// Names without a scheme (`seg0.ts`, `/live/seg0.ts`) are resolved against the playlist's
/// address by every HLS reader, FFmpeg's included, so they stay on the same server.
/// A master playlist's variant playlists are not read here; their segments are held by the guard
/// and by FFmpeg's own checks.
enum RemotePlaylistCheck {
    /// At most this much of a playlist is read (a VOD playlist of 10 000 segments is ~500 KB).
    static let maxBytes = 1 << 20

    static func verify(_ network: NetworkAddress, timeout: Duration, whitelist: String, certificates: CertificateCheck,
                       interrupt: InterruptFlag?) throws(AVPipelineError) {
        let io = try IOContext(url: network.url, interrupt: interrupt,
                               options: network.openOptions(timeout: timeout, whitelist: whitelist, certificates: certificates)) {
            rc, logged in network.error(rc, timeout: timeout, logged: logged)
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes)
        var count = 0
        while count < maxBytes {
            let rc = bytes.withUnsafeMutableBufferPointer { avio_read(io.pointer, $0.baseAddress! + count, Int32(maxBytes - count)) }
            if rc == avp_error_eof() || rc == 0 { break }
            if rc < 0 { throw network.error(rc, timeout: timeout, logged: nil) }
            count += Int(rc)
        }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        for name in names(in: text) {
            if let scheme = scheme(of: name), scheme != network.scheme {
                throw .inputPolicy(path: network.url, reason: "the playlist names '\(name)', which is not read over \(network.scheme) (a remote playlist may only name what its own server protocols reach: no local files, data: or other protocols)")
            }
        }
    }

    /// Every address a playlist names: its URI lines and the `URI="…"` attributes of its tags
    /// (keys, initialisation sections, renditions).
    static func names(in playlist: String) -> [String] {
        var found: [String] = []
        for raw in playlist.split(whereSeparator: \.isNewline) {
            let line = trimmed(raw)
            if line.isEmpty { continue }
            if !line.hasPrefix("#") {
                found.append(String(line))
                continue
            }
            var rest = line
            while let start = rest.firstRange(of: "URI=\"") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(of: "\"") else { break }
                found.append(String(rest[..<end]))
                rest = rest[rest.index(after: end)...]
            }
        }
        return found
    }

    /// The scheme of `name` (`file`, `data`, `http`), lowercased; nil for a relative or absolute path.
    static func scheme(of name: String) -> String? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let candidate = name[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        // `crypto+http://…`, `file,…`: the first protocol is what FFmpeg opens.
        return candidate.lowercased().split(separator: "+").first.map(String.init)
    }
}

/// `text` without surrounding spaces, tabs and carriage returns (the library has no Foundation).
private func trimmed(_ text: Substring) -> Substring {
    var text = text
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
    return text
}
