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

    /// When the picture is shown, in `format.timeBase`.
    public var presentationTime: MediaTime? {
        MediaTime(ffmpeg: frame.pointer.pointee.pts, timeBase: format.timeBase)
    }

    public var duration: MediaTime? {
        let ticks = avp_frame_duration(frame.pointer)
        return ticks > 0 ? MediaTime(value: ticks, timeBase: format.timeBase) : nil
    }

    /// Planes of picture data (3 for yuv420p, 1 for a packed layout such as rgb24), as `PCMBuffer.planeCount`.
    public var planeCount: Int { format.pixelFormat.planeCount }

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

extension VideoFrame {
    /// A new blank picture with planes of its own, for a program to draw into
    /// (`withUnsafeMutablePlane`) and send to a stage such as `VideoEncoder`, as
    /// `PCMBuffer(format:frameCount:presentationTime:)` does for sound. `presentationTime` and
    /// `duration` are converted to `format.timeBase` (`MediaTime(value: n, timeBase: format.timeBase)`
    /// is picture n of a clock ticking once a picture).
    public convenience init(format: VideoFormat, presentationTime: MediaTime?, duration: MediaTime? = nil) throws {
        guard (1...16384).contains(format.width), (1...16384).contains(format.height) else {
            throw AVPipelineError.invalidOption(name: "picture size", value: "\(format.width)x\(format.height)",
                                                reason: "must be between 1 and 16384 pixels a side")
        }
        let frame = try Frame(picture: format.pixelFormat, width: format.width, height: format.height)
        let f = frame.pointer
        f.pointee.pts = presentationTime?.converted(to: format.timeBase).value ?? avp_nopts_value()
        if let duration { avp_frame_set_duration(f, duration.converted(to: format.timeBase).value) }
        if let sar = format.sampleAspectRatio { f.pointee.sample_aspect_ratio = sar.avValue }
        self.init(frame: frame, format: format)
    }

    /// Writes into plane `plane` (`lineSize(plane)` bytes a row, `planeHeight(plane)` rows). The
    /// planes are made the picture's own first (copied if another stage still shares them), so a
    /// picture already handed on is never changed under its reader.
    public func withUnsafeMutablePlane<R>(_ plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        precondition(plane >= 0 && plane < format.pixelFormat.planeCount, "plane \(plane) out of range")
        try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable")
        let base = withUnsafePointer(to: &frame.pointer.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[plane] }
        }
        return try body(UnsafeMutableRawBufferPointer(start: base, count: lineSize(plane) * planeHeight(plane)))
    }
}

extension VideoFormat {
    /// Pictures of `width`×`height` in `pixelFormat`, timed in `timeBase`; upright, square pixels
    /// unless `sampleAspectRatio` says otherwise, colour undescribed.
    public init(pixelFormat: PixelFormat = .yuv420p, width: Int, height: Int, timeBase: Rational,
                frameRate: Rational? = nil, sampleAspectRatio: Rational? = nil) {
        self.init(pixelFormat: pixelFormat, width: width, height: height, sampleAspectRatio: sampleAspectRatio,
                  colorRange: nil, colorSpace: nil, colorPrimaries: nil, colorTransfer: nil, rotation: 0,
                  isMirrored: false, timeBase: timeBase, frameRate: frameRate)
    }
}
