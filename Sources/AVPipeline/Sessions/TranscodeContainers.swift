extension TranscodeSession {
    /// The containers a transcode writes: AAC in ADTS or M4A; video and audio in MP4, MOV,
    /// Matroska, WebM, MPEG-TS, HLS or FLV; H.264/H.265 as raw Annex B streams.
    public static let containers: [Container] = [.adts, .m4a, .mp4, .mov, .mkv, .webm, .ts, .hls, .flv, .h264, .hevc]

    /// Other names of these containers that a transcode does not take from an extension.
    public static let refusedExtensions: Set<String> = ["m4b", "m4v", "mts"]

    /// The container an output name asks for: by its extension, ADTS for standard output (`-`,
    /// the one AAC container that streams); nil when it names none a transcode writes.
    public static func container(of output: String) -> Container? {
        if output == "-" { return .adts }
        guard !refusedExtensions.contains(Container.fileExtension(of: output)),
              let container = Container(path: output), containers.contains(container) else { return nil }
        return container
    }

    /// Whether `output` is a live stream to a server (RTMP, SRT), which is written in real time.
    static func isLiveStream(_ output: String) -> Bool {
        let lower = output.lowercased()
        return ["rtmp://", "rtmps://", "srt://"].contains { lower.hasPrefix($0) }
    }
}

extension TranscodeSession.Video {
    /// The plan's video work going into `container`, the encoder named. Throws `.unsupportedCodec`
    /// when this FFmpeg has no encoder for the codec asked.
    public func work(into container: Container) throws -> TranscodePlan.VideoWork {
        switch self {
        case .none: return .none
        case .copy: return .copy
        case .encode(var settings, let codec):
            let asked = codec ?? (container == .webm ? "vp9" : container == .hevc ? "hevc" : "h264")
            if asked == "copy" { return .copy }
            let codecs: [String: Codec] = ["h264": .h264, "hevc": .hevc, "h265": .hevc, "vp9": .vp9, "av1": .av1]
            settings.encoder = asked
            if let codec = codecs[asked] {
                guard let name = VideoEncoderOptions.encoderName(for: codec) else {
                    throw AVPipelineError.unsupportedCodec("this FFmpeg build has no \(asked) encoder")
                }
                settings.encoder = name
            }
            return .encode(settings)
        }
    }
}
