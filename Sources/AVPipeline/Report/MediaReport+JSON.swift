extension MediaReport {
    /// The report as indented JSON with stable keys (no final newline): format, format_long_name,
    /// duration (seconds), bitrate, tags, tracks[] and incomplete; unknown or inapplicable values are null.
    public var json: String { jsonValue.text() }

    var jsonValue: JSONValue {
        .object([
            ("format", .string(info.formatName)),
            ("format_long_name", .optional(info.formatLongName)),
            ("duration", .optional(info.duration?.seconds)),
            ("bitrate", .optional(info.bitRate)),
            ("tags", .object(tags.map { ($0.key, .string($0.value)) })),
            ("tracks", .array(info.tracks.map { Self.json($0, presentFrames: presentFrames[$0.index]) })),
            ("incomplete", .optional(incomplete)),
        ])
    }

    /// `presentFrames`: the frames a cut file still holds, shown instead of its index's count.
    static func json(_ track: TrackInfo, presentFrames: Int?) -> JSONValue {
        let isVideo = track.kind == .video
        return .object([
            ("index", .int(track.index)),
            ("kind", .string(track.kind.rawValue)),
            ("codec", .string(track.codec.name)),
            ("codec_tag", .optional(track.codecTag)),
            ("profile", .optional(track.profile)),
            ("sample_rate", .optional(track.sampleRate)),
            ("channels", .optional(track.channels)),
            ("channel_layout", .optional(track.channelLayout?.description)),
            ("width", .optional(track.width)),
            ("height", .optional(track.height)),
            ("coded_width", .optional(track.codedWidth)),
            ("coded_height", .optional(track.codedHeight)),
            ("rotation", isVideo ? .int(track.rotation) : .null),
            ("mirrored", isVideo ? .bool(track.isMirrored) : .null),
            ("frame_rate", .optional(track.frameRate.map(decimal))),
            ("pixel_format", .optional(track.pixelFormat?.name)),
            ("color_range", .optional(track.colorRange)),
            ("color_space", .optional(track.colorSpace)),
            ("color_primaries", .optional(track.colorPrimaries)),
            ("color_transfer", .optional(track.colorTransfer)),
            ("frames", .optional(presentFrames ?? track.frameCount)),
            ("bitrate", .optional(track.bitRate)),
            ("duration", .optional(track.duration?.seconds)),
            ("language", .optional(track.language)),
        ])
    }
}
