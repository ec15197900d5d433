internal import CFFmpeg

/// Why a decoder would not open, in words. FFmpeg answers ENOSYS ("Function not implemented") or
/// PATCHWELCOME for a profile of a codec it knows but has not implemented — xHE-AAC (USAC) in
/// FFmpeg 5.1's AAC decoder — which is this FFmpeg's limit, not a damaged file.
enum DecoderRefusal {
    static func describe(_ error: AVPipelineError, codec: Codec, parameters: CodecParameters) -> AVPipelineError {
        guard case .ffmpeg(_, let code, _) = error, code == avp_error_enosys() || code == avp_error_patchwelcome() else {
            return .unsupportedCodec("\(codec): the decoder rejected the stream's parameters (\(error))")
        }
        let profile = codec == .aac ? aacProfile(parameters.extradata).map { "\($0), a profile of AAC," } : nil
        return .unsupportedCodec("\(codec): \(profile ?? "this profile of the codec") is not supported by this FFmpeg's decoder")
    }

    /// The MPEG-4 audio object type an AudioSpecificConfig starts with (5 bits; 31 escapes to 32 + 6 bits), named.
    static func aacProfile(_ config: [UInt8]) -> String? {
        guard config.count >= 2 else { return nil }
        var type = Int(config[0] >> 3)
        if type == 31 { type = 32 + (Int(config[0] & 0x07) << 3 | Int(config[1] >> 5)) }
        let names = [1: "AAC Main", 2: "AAC-LC", 3: "AAC SSR", 4: "AAC LTP", 5: "HE-AAC", 23: "AAC-LD", 29: "HE-AACv2",
                     39: "AAC-ELD", 42: "xHE-AAC (USAC)"]
        return names[type] ?? "MPEG-4 audio object type \(type)"
    }
}
