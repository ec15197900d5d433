internal import CFFmpeg

/// An output that is a network address: a live stream pushed to a server (`rtmp://`, `rtmps://`,
/// `srt://`) or an HLS stream uploaded with HTTP PUT (`http(s)://…/NAME.m3u8`). libavformat opens
/// it itself: nothing is staged, committed or taken back, so only containers that stream go there.
struct NetworkOutput {
    let url: String
    let scheme: NetworkScheme

    /// The address `path` names, checked for `container`; nil when `path` is a file name.
    init?(path: String, container: Container) throws(AVPipelineError) {
        guard case .url(_, let scheme) = OutputLocation(path) else { return nil }
        Redaction.registerSecrets(of: path)
        let supported = "avpipe writes to rtmp://, rtmps://, srt:// (a live stream) and http(s)://…/NAME.m3u8 (an HLS upload)"
        guard let scheme else {
            throw .invalidOption(name: "output", value: path, reason: supported)
        }
        guard avio_find_protocol_name(path) != nil else {
            throw .unsupportedFormat("this FFmpeg build has no \(scheme.rawValue) protocol ('\(path)')")
        }
        switch scheme {
        case .rtmp, .rtmps:
            guard container == .flv else {
                throw .invalidOption(name: "output", value: path, reason: "RTMP carries FLV (H.264 + AAC), not \(container.rawValue.uppercased())")
            }
        case .srt:
            guard container.streams, container != .hls else {
                throw .invalidOption(name: "output", value: path, reason: "SRT carries a stream that is written front to back: TS (the default), Matroska or FLV")
            }
        case .http, .https:
            guard container == .hls else {
                throw .invalidOption(name: "output", value: path,
                                     reason: "an http(s) output is an HLS stream uploaded with PUT: name its playlist (…/NAME.m3u8)")
            }
        }
        url = path
        self.scheme = scheme
        if !scheme.isLiveStream { try checkPlaylistName() }
    }

    // MARK: HLS upload

    /// The playlist's address without its name: the segments go beside it.
    var base: String { String(url[..<url.lastIndex(of: "/")!]) }
    /// The playlist's name without `.m3u8`: every segment name starts with it.
    var stem: String { String(url[url.index(after: url.lastIndex(of: "/")!)...].dropLast(5)) }
    /// The hls muxer's segment address pattern (`%d` counts from 0).
    func segmentPattern(fmp4: Bool) -> String { "\(base)/\(stem)%d.\(fmp4 ? "m4s" : "ts")" }
    /// The fMP4 initialization segment, named relative to the playlist.
    var initName: String { "\(stem)-init.mp4" }

    /// The address names a playlist whose segments can be named after it (see `HLSFolder`).
    private func checkPlaylistName() throws(AVPipelineError) {
        let afterScheme = url[url.firstRange(of: "://")!.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/"), url.lowercased().hasSuffix(".m3u8"), stem.count > 0 else {
            throw .invalidOption(name: "output", value: url, reason: "an HLS upload names its playlist: http://host/path/NAME.m3u8")
        }
        // A query or fragment would be cut from each segment's address by the muxer's pattern;
        // '%' is the pattern's own character.
        if afterScheme[slash...].contains(where: { "%#?".contains($0) || ($0.asciiValue ?? 0x20) < 0x20 }) {
            throw .invalidOption(name: "output", value: url,
                                 reason: "'%', '#', '?' and control characters are not allowed in an HLS upload's path: the segments' addresses are made from it")
        }
    }
}
