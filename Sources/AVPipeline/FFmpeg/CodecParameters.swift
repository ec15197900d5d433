internal import CFFmpeg

/// Owns one `AVCodecParameters`: a stream's codec description, as muxers need it.
///
/// `@unchecked Sendable`: it is filled once in `init` and never written afterwards; every later use
/// only reads it (`avcodec_parameters_copy` from it), so sharing it between tasks is race-free.
final class CodecParameters: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVCodecParameters>

    init(copying source: UnsafePointer<AVCodecParameters>) throws(AVPipelineError) {
        pointer = try allocated(avcodec_parameters_alloc())
        // Fully initialized: a throw from here runs deinit, which frees the parameters.
        try check(avcodec_parameters_copy(pointer, source), "avcodec_parameters_copy")
    }

    init(from context: UnsafePointer<AVCodecContext>) throws(AVPipelineError) {
        pointer = try allocated(avcodec_parameters_alloc())
        // Fully initialized: a throw from here runs deinit, which frees the parameters.
        try check(avcodec_parameters_from_context(pointer, context), "avcodec_parameters_from_context")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&owned)
    }

    var codecID: AVCodecID { pointer.pointee.codec_id }
    var extradata: [UInt8] {
        guard let data = pointer.pointee.extradata, pointer.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.extradata_size)))
    }
}

/// What every stream description reads from codec parameters, in one place.
extension AVCodecParameters {
    /// FFmpeg's name for the codec profile (`LC`, `High`, `Main`…), when it has one.
    var profileName: String? { avcodec_profile_name(codec_id, profile).map { String(cString: $0) } }

    /// The declared bit rate, when the stream declares one.
    var declaredBitRate: Int? { bit_rate > 0 ? Int(bit_rate) : nil }

    /// The codec, its profile and bit rate: what every encoded stream's format reads alike.
    var codecSummary: (codec: Codec, profile: String?, bitRate: Int?) { (Codec(codec_id), profileName, declaredBitRate) }
}

extension Codec {
    /// `AAC (LC)`: the codec and, when known, its profile, for people to read.
    func label(profile: String?) -> String { "\(self)\(profile.map { " (\($0))" } ?? "")" }
}
