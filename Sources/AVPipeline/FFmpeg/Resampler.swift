internal import CFFmpeg

/// Owns one `SwrContext` converting between two audio formats (sample format, rate, layout).
final class Resampler {
    let pointer: OpaquePointer
    let input: AudioFormat
    let output: AudioFormat

    init(from input: AudioFormat, to output: AudioFormat) throws(AVPipelineError) {
        self.input = input
        self.output = output
        var context: OpaquePointer? = nil
        try input.channelLayout.withAVChannelLayout { inLayout throws(AVPipelineError) in
            try output.channelLayout.withAVChannelLayout { outLayout throws(AVPipelineError) in
                try check(swr_alloc_set_opts2(&context,
                                              UnsafeMutablePointer(mutating: outLayout), output.sampleFormat.avValue, Int32(output.sampleRate),
                                              UnsafeMutablePointer(mutating: inLayout), input.sampleFormat.avValue, Int32(input.sampleRate),
                                              0, nil), "swr_alloc_set_opts2")
            }
        }
        pointer = try allocated(context)
        // Fully initialized: a throw from here runs deinit, which frees the context (freeing it
        // here as well would free it twice).
        try check(swr_init(pointer), "swr_init")
    }

    deinit {
        var owned: OpaquePointer? = pointer
        swr_free(&owned)
    }

    /// Output frames `inputFrames` more input frames can produce at most (including buffered ones).
    func maximumOutput(forInput inputFrames: Int) -> Int {
        Int(swr_get_out_samples(pointer, Int32(inputFrames)))
    }

    /// Converts `source` (or flushes, when `nil`) into `destination`, whose buffers hold at least
    /// `capacity` frames; returns the frames written.
    func convert(_ source: UnsafePointer<AVFrame>?, into destination: UnsafeMutablePointer<AVFrame>,
                 capacity: Int) throws(AVPipelineError) -> Int {
        let written: Int32
        if let source {
            written = swr_convert(pointer, destination.pointee.extended_data, Int32(capacity),
                                  UnsafeMutableRawPointer(source.pointee.extended_data)
                                      .assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  source.pointee.nb_samples)
        } else {
            written = swr_convert(pointer, destination.pointee.extended_data, Int32(capacity), nil, 0)
        }
        return Int(try check(written, "swr_convert"))
    }
}
