internal import CFFmpeg

/// Owns one `AVBSFContext` (a bitstream filter such as `h264_mp4toannexb`) and speaks its
/// send/receive protocol, turning EAGAIN/EOF into control flow like `CodecContext`. `supply(_:)`
/// and `next()` are the drain every user of a filter needs: its outputs go into the owners its
/// inputs came in, so filtering makes no packet owner of its own. One driver (see `SampleSource`).
final class BitstreamFilter {
    let pointer: UnsafeMutablePointer<AVBSFContext>
    // Per-packet state, unchecked: one driver.
    /// The owner of the last packet given to the filter, left blank by it: it receives the next output.
    @exclusivity(unchecked) private var spare: Packet?
    /// `supply(nil)` said the input ended: what the filter holds is flushed out.
    @exclusivity(unchecked) private(set) var inputEnded = false

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

    /// What `next()` gives: a filtered packet, a request for input, or the end of the filtered stream.
    enum Output { case packet(Packet), needsInput, drained }

    /// The filter's next output, if it has one before it needs more input. The owner is moved in
    /// and out of `spare` (`take()`), not copied: a copy is a retain and a release. After a failed
    /// receive the owner is kept, emptied, and the error thrown.
    func next() throws(AVPipelineError) -> Output {
        if spare == nil && inputEnded { spare = try Packet() }  // what the flush gives needs an owner
        guard let owner = spare.take() else { return .needsInput }
        let result: ReceiveResult
        do {
            result = try receive(into: owner)
        } catch {
            owner.unref()
            spare = owner
            throw error
        }
        switch result {
        case .got:
            return .packet(owner)
        case .drained:
            spare = owner
            return .drained
        case .needsInput:
            spare = owner
            return inputEnded ? .drained : .needsInput
        }
    }

    /// Gives the filter `packet` (its contents move in; the blank owner receives a later output)
    /// or, with `nil`, tells it the input ended.
    func supply(_ packet: Packet?) throws(AVPipelineError) {
        guard let packet else {
            inputEnded = true
            try send(nil)
            return
        }
        try send(packet)
        spare = packet
    }

    func receive(into packet: Packet) throws(AVPipelineError) -> ReceiveResult {
        let rc = av_bsf_receive_packet(pointer, packet.pointer)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .drained }
        try check(rc, "av_bsf_receive_packet")
        return .got
    }
}
