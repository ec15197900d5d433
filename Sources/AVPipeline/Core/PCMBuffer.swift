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
