internal import CFFmpeg

/// Owns one `AVBSFContext` (a bitstream filter such as `h264_mp4toannexb`) and speaks its
/// send/receive protocol, turning EAGAIN/EOF into control flow like `CodecContext`.
final class BitstreamFilter {
    let pointer: UnsafeMutablePointer<AVBSFContext>

    /// Sets up filter `name` for a stream described by `parameters` with timestamps in `timeBase`.
    init(name: String, parameters: CodecParameters, timeBase: Rational) throws(AVPipelineError) {
        guard let filter = av_bsf_get_by_name(name) else {
            throw .unsupportedFormat("FFmpeg has no '\(name)' bitstream filter")
        }
        var context: UnsafeMutablePointer<AVBSFContext>? = nil
        try check(av_bsf_alloc(filter, &context), "av_bsf_alloc")
        pointer = try allocated(context)
        // From here a throw runs deinit, which frees the context.
        try check(avcodec_parameters_copy(pointer.pointee.par_in, parameters.pointer), "avcodec_parameters_copy")
        pointer.pointee.time_base_in = timeBase.avValue
        try check(av_bsf_init(pointer), "av_bsf_init")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVBSFContext>? = pointer
        av_bsf_free(&owned)
    }

    /// The stream after filtering (for mp4toannexb: the same codec, Annex B extradata).
    func outputParameters() throws(AVPipelineError) -> CodecParameters {
        try CodecParameters(copying: pointer.pointee.par_out)
    }

    var outputTimeBase: Rational { Rational(pointer.pointee.time_base_out) }

    enum ReceiveResult { case got, needsInput, drained }

    /// Gives the filter one packet (its reference is taken) or, with `nil`, tells it the input ended.
    func send(_ packet: Packet?) throws(AVPipelineError) {
        try check(av_bsf_send_packet(pointer, packet?.pointer), "av_bsf_send_packet")
    }

    func receive(into packet: Packet) throws(AVPipelineError) -> ReceiveResult {
        let rc = av_bsf_receive_packet(pointer, packet.pointer)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .drained }
        try check(rc, "av_bsf_receive_packet")
        return .got
    }
}
