internal import CFFmpeg

/// Owns one `AVBufferPool` of sample buffers for frames of one format, for stages that make a new
/// frame per chunk (resampling, FIFO re-chunking). A buffer goes back to the pool when the last
/// frame referencing it is freed — on whichever thread — so a steady stream reuses a handful of
/// buffers instead of asking the allocator each time: av_frame_get_buffer's aligned allocation
/// costs ~6k instructions per call once glibc starts consolidating its small-chunk bins.
final class AudioBufferPool {
    let format: AudioFormat
    private var pool: OpaquePointer?
    private var bufferSize = 0

    init(format: AudioFormat) {
        self.format = format
    }

    deinit {
        // Buffers still out keep the pool's memory alive until they come back; uninit frees the rest.
        av_buffer_pool_uninit(&pool)
    }

    /// A writable frame with room for `frameCount` frames of `format`, its buffer from the pool.
    func frame(frameCount: Int) throws(AVPipelineError) -> Frame {
        let frame = try Frame(audioFormat: format, frameCount: frameCount)
        let needed = Int(av_samples_get_buffer_size(nil, Int32(format.channelCount), Int32(frameCount),
                                                    format.sampleFormat.avValue, 0))
        guard needed > 0 else { throw .ffmpeg(call: "av_samples_get_buffer_size", code: Int32(needed), message: "bad frame size") }
        if needed > bufferSize {
            // A larger chunk than before: later chunks are rarely smaller, so the old pool retires.
            av_buffer_pool_uninit(&pool)
            pool = try allocated(av_buffer_pool_init(needed, nil))
            bufferSize = needed
        }
        let buffer = try allocated(av_buffer_pool_get(pool))
        let rc = avp_frame_attach_audio_buffer(frame.pointer, buffer)
        if rc < 0 {
            var unused: UnsafeMutablePointer<AVBufferRef>? = buffer
            av_buffer_unref(&unused)
            // Layouts the single-buffer form cannot express (over 8 planes) take FFmpeg's own path.
            try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")
        }
        return frame
    }
}
