internal import CFFmpeg

/// Writes decoded pictures uncompressed: YUV4MPEG2 (`.y4m`, what `ffmpeg -f yuv4mpegpipe` writes:
/// a header with size, rate and chroma siting, then each picture's planes) or raw planes (`.yuv`,
/// no header at all: the reader must be told the format and size).
///
/// libavformat's muxers do the writing: `yuv4mpegpipe` takes pictures wrapped, not copied, by the
/// `wrapped_avframe` encoder; `rawvideo` takes the `rawvideo` encoder's packed planes. The stream
/// is described by its first picture; a later picture of another size or pixel format cannot go
/// into the same file and is an error. The file appears only once complete.
public final class VideoFrameWriter<Upstream: SampleSource> where Upstream.Buffer == VideoFrame {
    /// `.y4m` or `.yuv` (`Container.holdsPictures`, one picture after another).
    public typealias Container = AVPipeline.Container

    /// The file kind written, from the options or the output's name.
    public let container: Container
    private let upstream: Upstream
    private var file: AtomicOutputFile?
    private var encoder: CodecContext?
    private var writer: SingleStreamFileWriter?
    private var first: VideoFormat?
    private var picturesWritten: Int64 = 0
    private let packet: Packet

    /// Checks the output (folder, existing file) before any picture is decoded.
    public init(upstream: Upstream, path: String, container: Container? = nil, overwrite: Bool = false) throws {
        guard let container = container ?? Container(path: path), container == .y4m || container == .rawYUV else {
            throw AVPipelineError.unsupportedFormat("cannot tell the picture format from '\(path)': use .y4m or .yuv")
        }
        self.upstream = upstream
        self.container = container
        packet = try Packet()
        file = try AtomicOutputFile(path: path, overwrite: overwrite)
    }

    /// The format the pictures were written in (after `run()`): what a `.yuv` reader must be told.
    public var writtenFormat: VideoFormat? { first }

    /// Pulls every picture and writes it; the file is complete and in place on return. Callable once.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        while let picture = try await upstream.next() {
            try write(picture)
            if let progress, let time = picture.presentationTime { progress(time) }
        }
        try checkCancellation()
        guard let encoder, let writer else {
            throw AVPipelineError.invalidData(path: file?.finalPath ?? "video", position: nil,
                                              reason: "the video track decoded to no pictures")
        }
        _ = try encoder.send(frame: nil)
        try drain(encoder, into: writer)
        return try writer.finish()
    }

    private func write(_ picture: VideoFrame) throws {
        if first == nil { try start(with: picture) }
        guard let first, let encoder, let writer else { return }
        let format = picture.format
        guard format.width == first.width, format.height == first.height, format.pixelFormat == first.pixelFormat else {
            throw AVPipelineError.unsupportedFormat("the pictures change from \(first.pixelFormat) \(first.width)x\(first.height) to \(format.pixelFormat) \(format.width)x\(format.height) at \(picture.presentationTime.map { "\($0)" } ?? "an unknown time"); a \(container.rawValue) file holds one size and format")
        }
        // These files carry no times, only the order: number the pictures, since a damaged stream
        // can give times that repeat or go back, which the muxer would refuse.
        let f = picture.frame.pointer
        f.pointee.pts = picturesWritten
        picturesWritten += 1
        _ = try encoder.send(frame: f)
        try drain(encoder, into: writer)
    }

    private func drain(_ encoder: CodecContext, into writer: SingleStreamFileWriter) throws {
        // One packet owner serves every picture: the writer releases its payload after writing.
        while try encoder.receive(packet: packet) == .got {
            try writer.write(packet)
        }
    }

    /// Sets up the encoder and the muxer for pictures like `picture`, as ffmpeg does for its output.
    private func start(with picture: VideoFrame) throws {
        guard let file, let codec = avcodec_find_encoder(container == .y4m ? AV_CODEC_ID_WRAPPED_AVFRAME : AV_CODEC_ID_RAWVIDEO) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build cannot write \(container.rawValue) pictures")
        }
        let format = picture.format
        let encoder = try CodecContext(codec: codec)
        let c = encoder.pointer
        c.pointee.width = Int32(format.width)
        c.pointee.height = Int32(format.height)
        c.pointee.pix_fmt = format.pixelFormat.avValue
        // A y4m header states the frame rate through the stream's time base, as ffmpeg writes it.
        let rate = format.frameRate ?? Rational(format.timeBase.denominator, format.timeBase.numerator)
        c.pointee.time_base = AVRational(num: rate.denominator, den: rate.numerator)
        // The decoder's description of the first picture, as ffmpeg hands it to its encoder.
        let f = picture.frame.pointer.pointee
        c.pointee.sample_aspect_ratio = format.sampleAspectRatio?.avValue ?? AVRational(num: 0, den: 1)
        c.pointee.color_range = f.color_range
        c.pointee.chroma_sample_location = f.chroma_location
        c.pointee.field_order = AVFieldOrder(rawValue: UInt32(avp_frame_field_order(picture.frame.pointer)))
        try encoder.open()
        let parameters = try CodecParameters(from: c)
        self.writer = try SingleStreamFileWriter(file: file, muxer: container.muxerName, parameters: parameters,
                                                 timeBase: Rational(c.pointee.time_base),
                                                 muxerOptions: container == .y4m ? ["strict": "unofficial"] : [:],
                                                 copiesSampleAspectRatio: true)
        self.file = nil
        self.encoder = encoder
        first = format
    }
}

extension SampleSource where Buffer == VideoFrame {
    /// Writes these pictures to a `.y4m` (YUV4MPEG2) or `.yuv` (raw planes) file.
    @discardableResult
    public func writeVideoFrames(to path: String, overwrite: Bool = false,
                                 progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await VideoFrameWriter(upstream: self, path: path, overwrite: overwrite).run(progress: progress)
    }
}
