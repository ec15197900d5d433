internal import CFFmpeg

/// One decoded picture. Wraps a refcounted `AVFrame`: the picture's planes are never copied when it
/// moves between stages.
public final class VideoFrame: SampleBuffer {
    let frame: Frame
    /// This picture's format (size and pixel layout may change mid-stream; the decoder's
    /// `outputFormat` is the stream's declared one).
    public let format: VideoFormat

    init(frame: Frame, format: VideoFormat) {
        self.frame = frame
        self.format = format
    }

    /// In `format.timeBase`.
    public var presentationTime: MediaTime? {
        MediaTime(ffmpeg: frame.pointer.pointee.pts, timeBase: format.timeBase)
    }

    public var duration: MediaTime? {
        let ticks = avp_frame_duration(frame.pointer)
        return ticks > 0 ? MediaTime(value: ticks, timeBase: format.timeBase) : nil
    }

    /// Whether the picture is a keyframe (decodable on its own), as the decoder marked it.
    public var isKeyframe: Bool { avp_frame_is_key(frame.pointer) != 0 }

    /// Bytes of plane `plane`: `lineSize(plane)` bytes per row, `planeHeight(plane)` rows.
    public func withUnsafePlane<R>(_ plane: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(plane >= 0 && plane < format.pixelFormat.planeCount, "plane \(plane) out of range")
        let rows = planeHeight(plane)
        let base = withUnsafePointer(to: &frame.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[plane] }
        }
        return try body(UnsafeRawBufferPointer(start: base, count: lineSize(plane) * rows))
    }

    /// Bytes from one row of plane `plane` to the next (at least its visible width).
    public func lineSize(_ plane: Int) -> Int {
        withUnsafePointer(to: &frame.pointer.pointee.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[plane]) }
        }
    }

    /// Rows in plane `plane` (chroma planes of 4:2:0 have half the picture's).
    public func planeHeight(_ plane: Int) -> Int {
        guard plane > 0, let descriptor = av_pix_fmt_desc_get(format.pixelFormat.avValue),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, plane < 3 else { return format.height }
        let shift = Int(descriptor.pointee.log2_chroma_h)
        return (format.height + (1 << shift) - 1) >> shift
    }
}
