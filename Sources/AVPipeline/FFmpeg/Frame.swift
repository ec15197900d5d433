internal import CFFmpeg

/// Owns one `AVFrame` (and through it, references to its refcounted sample buffers).
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(AVPipelineError) {
        pointer = try allocated(av_frame_alloc())
    }

    /// A frame with its own sample buffers for `frameCount` frames of `format`.
    convenience init(audio format: AudioFormat, frameCount: Int) throws(AVPipelineError) {
        try self.init(audioFormat: format, frameCount: frameCount)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// A frame described as `frameCount` frames of `format`, without sample buffers yet.
    convenience init(audioFormat format: AudioFormat, frameCount: Int) throws(AVPipelineError) {
        try self.init()
        pointer.pointee.format = format.sampleFormat.avValue.rawValue
        pointer.pointee.sample_rate = Int32(format.sampleRate)
        pointer.pointee.nb_samples = Int32(frameCount)
        try format.channelLayout.withAVChannelLayout { layout throws(AVPipelineError) in
            try check(av_channel_layout_copy(&pointer.pointee.ch_layout, layout), "av_channel_layout_copy")
        }
    }

    /// A frame with its own picture planes: `width`×`height` in `format`.
    convenience init(picture format: PixelFormat, width: Int, height: Int) throws(AVPipelineError) {
        try self.init()
        pointer.pointee.format = format.avValue.rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }

    /// A new owner holding the references `self` held; `self` is left blank for reuse.
    func takeReference() throws(AVPipelineError) -> Frame {
        let moved = try Frame()
        av_frame_move_ref(moved.pointer, pointer)
        return moved
    }

    func unref() { av_frame_unref(pointer) }

    var sampleCount: Int { Int(pointer.pointee.nb_samples) }

    /// Whether this frame is the only user of its sample buffers (so writing to them is safe).
    var isWritable: Bool { av_frame_is_writable(pointer) != 0 }
}

extension Frame {
    /// A new owner of another reference to this frame's buffers, with its own copy of the
    /// properties (times, picture type), which can then be changed without touching this one.
    func newReference() throws(AVPipelineError) -> Frame {
        let copy = try Frame()
        try check(av_frame_ref(copy.pointer, pointer), "av_frame_ref")
        return copy
    }
}
