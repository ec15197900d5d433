/// How H.264/H.265 NAL units are delimited in a packet.
public enum NALFraming: String, Sendable {
    /// Length-prefixed NAL units, parameter sets in the extradata (`avcC`/`hvcC`): how MP4/MOV store them.
    case lengthPrefixed
    /// Start codes (`00 00 00 01`), parameter sets in-band: raw `.h264`/`.h265` streams, MPEG-TS.
    case annexB
}

extension NALFraming {
    /// H.264/H.265 are length-prefixed when their extradata is an `avcC`/`hvcC` record (it starts
    /// with version 1), and Annex B when it is absent or holds start-code-delimited parameter sets.
    static func detect(codec: Codec, extradata: [UInt8]) -> NALFraming {
        guard codec == .h264 || codec == .hevc, extradata.count >= 7 else { return .annexB }
        let startCode = extradata.starts(with: [0, 0, 1]) || extradata.starts(with: [0, 0, 0, 1])
        return startCode ? .annexB : .lengthPrefixed
    }
}
