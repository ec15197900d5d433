extension MediaReport {
    /// The report as lines for people: the file (container, duration, bit rate), its tags, then
    /// one line per track; ends with a newline.
    public var text: String {
        var header = "\(info.path): \(info.formatName)"
        if let long = info.formatLongName { header += " (\(long))" }
        header += ", duration \(info.duration.map { "\($0)" } ?? "unknown")"
        if let rate = info.bitRate { header += ", \(rate / 1000) kb/s" }
        var lines = [header]
        let tags = tags
        if !tags.isEmpty { lines.append("  tags: " + tags.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")) }
        for track in info.tracks {
            lines.append("  #\(track.index) \(track.kind): " + parts(of: track).joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What one track's line says, in order.
    private func parts(of track: TrackInfo) -> [String] {
        var parts = ["\(track.codec)" + (track.profile.map { " (\($0))" } ?? "") + (track.codecTag.map { " [\($0)]" } ?? "")]
        switch track.kind {
        case .audio:
            if let rate = track.sampleRate { parts.append("\(rate) Hz") }
            if let layout = track.channelLayout { parts.append("\(layout)") }
        case .video:
            if let format = track.pixelFormat {
                let colors = [track.colorRange, track.colorSpace, track.colorPrimaries, track.colorTransfer].compactMap { $0 }
                parts.append(format.name + (colors.isEmpty ? "" : " (\(colors.joined(separator: ", ")))"))
            }
            if let width = track.width, let height = track.height { parts.append("\(width)x\(height)") }
            if let rate = track.frameRate, !track.isCoverArt { parts.append("\(Self.twoDecimals(Self.decimal(rate))) fps") }
            if track.rotation != 0 || track.isMirrored {
                parts.append("rotated \(track.rotation)°" + (track.isMirrored ? " and mirrored" : "")
                             + " (stored \(track.codedWidth ?? 0)x\(track.codedHeight ?? 0))")
            }
            if track.isCoverArt { parts.append("cover art") }
        default: break
        }
        if let rate = track.bitRate { parts.append("\(rate / 1000) kb/s") }
        if let present = presentFrames[track.index], let declared = track.frameCount {
            parts.append("\(present) of \(declared) \(track.kind == .video ? "frames" : "packets") present")
        } else if track.kind == .video, let frames = track.frameCount {
            parts.append("\(frames) frames")
        }
        if let language = track.language { parts.append("language \(language)") }
        return parts
    }

    /// `29.97`, `25`, `23.98`: at most two decimals, none when whole.
    private static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        return fraction == 0 ? "\(hundredths / 100)" : "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
