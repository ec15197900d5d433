internal import CFFmpeg

/// A chunk of decoded (PCM) audio. Wraps a refcounted `AVFrame`; no sample bytes are copied when it
/// moves between stages.
public final class PCMBuffer: SampleBuffer {
    let frame: Frame
    public let format: AudioFormat

    init(frame: Frame, format: AudioFormat) {
        self.frame = frame
        self.format = format
    }

    /// Number of sample frames (samples per channel).
    public var frameCount: Int { frame.sampleCount }

    public var presentationTime: MediaTime? {
        MediaTime(ffmpeg: frame.pointer.pointee.pts, timeBase: format.sampleTimeBase)
    }

    public var duration: MediaTime? {
        MediaTime(value: Int64(frameCount), timeBase: format.sampleTimeBase)
    }

    /// Planes of sample data: one per channel for planar formats, one in all otherwise.
    public var planeCount: Int { format.sampleFormat.isPlanar ? format.channelCount : 1 }

    /// Reads one plane's bytes (`frameCount × bytesPerSample`, × channels when interleaved).
    public func withUnsafePlane<R>(_ plane: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(plane >= 0 && plane < planeCount, "plane \(plane) out of range")
        let perPlaneChannels = format.sampleFormat.isPlanar ? 1 : format.channelCount
        let byteCount = frameCount * format.sampleFormat.bytesPerSample * perPlaneChannels
        let base = frame.pointer.pointee.extended_data[plane]
        return try body(UnsafeRawBufferPointer(start: base, count: byteCount))
    }
}

extension PCMBuffer {
    /// A new silent chunk of `frameCount` sample frames with planes of its own, for a program to
    /// write sound into (`withUnsafeMutablePlane`) and send to a stage such as `AACEncoder`, as
    /// `VideoFrame(format:presentationTime:)` does for pictures. `presentationTime` is converted to
    /// the format's sample time base (one tick a sample frame).
    public convenience init(format: AudioFormat, frameCount: Int, presentationTime: MediaTime?) throws {
        guard (1...1 << 20).contains(frameCount) else {
            throw AVPipelineError.invalidOption(name: "frame count", value: "\(frameCount)", reason: "must be between 1 and 1048576 sample frames")
        }
        guard (1...768_000).contains(format.sampleRate), (1...64).contains(format.channelCount) else {
            throw AVPipelineError.invalidOption(name: "audio format", value: "\(format)",
                                                reason: "the rate must be 1 to 768000 Hz and the channels 1 to 64")
        }
        let frame = try Frame(audio: format, frameCount: frameCount)
        frame.pointer.pointee.pts = presentationTime?.converted(to: format.sampleTimeBase).value ?? avp_nopts_value()
        self.init(frame: frame, format: format)
        // Silence: unsigned 8-bit samples rest at 128, every other format at zero.
        let silence: UInt8 = format.sampleFormat == .u8 || format.sampleFormat == .u8p ? 0x80 : 0
        for plane in 0..<planeCount {
            try withUnsafeMutablePlane(plane) { $0.initializeMemory(as: UInt8.self, repeating: silence) }
        }
    }

    /// Writes into plane `plane` (`frameCount × bytesPerSample` bytes, × channels when
    /// interleaved). The samples are made this chunk's own first (copied if another stage still
    /// shares them), so audio already handed on is never changed under its reader.
    public func withUnsafeMutablePlane<R>(_ plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        precondition(plane >= 0 && plane < planeCount, "plane \(plane) out of range")
        try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable")
        let perPlaneChannels = format.sampleFormat.isPlanar ? 1 : format.channelCount
        let byteCount = frameCount * format.sampleFormat.bytesPerSample * perPlaneChannels
        return try body(UnsafeMutableRawBufferPointer(start: frame.pointer.pointee.extended_data[plane], count: byteCount))
    }
}
