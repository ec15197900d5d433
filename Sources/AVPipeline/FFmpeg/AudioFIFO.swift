internal import CFFmpeg

/// Owns one `AVAudioFifo`: re-chunks audio to a fixed frame count (the AAC encoder's 1024, a
/// capture's chunk size) without hand-rolled leftover buffers.
final class AudioFIFO {
    let pointer: OpaquePointer
    let format: AudioFormat
    private let buffers: AudioBufferPool

    init(format: AudioFormat, initialCapacity: Int) throws(AVPipelineError) {
        self.format = format
        buffers = AudioBufferPool(format: format)
        pointer = try allocated(av_audio_fifo_alloc(format.sampleFormat.avValue,
                                                    Int32(format.channelLayout.channelCount),
                                                    Int32(max(initialCapacity, 1))))
    }

    deinit { av_audio_fifo_free(pointer) }

    var count: Int { Int(av_audio_fifo_size(pointer)) }

    func write(_ frame: UnsafePointer<AVFrame>, frameCount: Int? = nil) throws(AVPipelineError) {
        let count = Int32(frameCount ?? Int(frame.pointee.nb_samples))
        guard count > 0 else { return }
        let raw = UnsafeMutableRawPointer(frame.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let written = av_audio_fifo_write(pointer, raw, count)
        try check(written, "av_audio_fifo_write")
    }

    /// Moves up to `maximum` frames into a new frame of the FIFO's format.
    func read(maximum: Int) throws(AVPipelineError) -> Frame {
        let take = min(maximum, count)
        let frame = try buffers.frame(frameCount: take)
        let raw = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_read(pointer, raw, Int32(take)), "av_audio_fifo_read")
        return frame
    }
}
