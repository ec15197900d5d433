internal import CFFmpeg

/// Capture from a file: reads PCM audio (a WAV of any sample format libavformat reads) and hands it
/// out in small fixed-size chunks, the way a microphone callback would — optionally paced in real
/// time like a live input.
public final class FileCapture: SampleSource {
    public typealias Buffer = PCMBuffer

    /// How the file is chunked, paced and opened.
    public struct Options: Sendable {
        /// Sample frames per chunk (the last chunk may be shorter).
        public var chunkFrames: Int = 1024
        /// Deliver chunks no faster than real time, like a live microphone.
        public var realtime: Bool = false
        /// What opening the file may do (by default: this one local file, nothing it refers to).
        public var inputPolicy: InputPolicy = .default
        /// A WAV cut short (a partial copy) fails with `.invalidData`. Off by default: the audio that
        /// is there is delivered, up to the last whole sample frame, and `truncation` says what is missing.
        public var strict: Bool = false

        /// 1024-frame chunks as fast as they are read, the safe input policy, cut files accepted, unless told otherwise.
        public init(chunkFrames: Int = 1024, realtime: Bool = false, inputPolicy: InputPolicy = .default,
                    strict: Bool = false) {
            self.chunkFrames = chunkFrames
            self.realtime = realtime
            self.inputPolicy = inputPolicy
            self.strict = strict
        }
    }

    /// The file read.
    public let path: String
    public let outputFormat: AudioFormat
    /// The file's tags (a WAV's LIST/INFO chunk: title, artist…), as FFmpeg names them.
    public let metadata: [String: String]
    /// Total length when the file declares it.
    public let duration: MediaTime?
    /// Set at the end when the file held less audio than it declares (never in strict mode).
    public private(set) var truncation: Truncation?

    private let options: Options
    private let input: InputContext
    private let streamIndex: Int
    private let decoder: CodecContext
    private let fifo: AudioFIFO
    private let packet: Packet
    private let frame: Frame
    private let declaredFrames: Int64?
    /// Bytes per sample frame: a packet that is not whole frames is the one the end of the file cut.
    private let blockAlign: Int
    private var framesOut: Int64 = 0
    private var inputEnded = false
    private var cutMidSample = false
    private var startInstant: ContinuousClock.Instant?

    /// Opens `path` and learns its format; fails when it holds no audio FFmpeg decodes.
    public init(path: String, options: Options = Options()) throws {
        guard options.chunkFrames > 0, options.chunkFrames <= 1 << 20 else {
            throw AVPipelineError.invalidOption(name: "chunk frames", value: "\(options.chunkFrames)",
                                                reason: "must be between 1 and 1048576")
        }
        self.path = path
        self.options = options
        input = try InputContext(path: path, policy: options.inputPolicy)
        metadata = dictionaryEntries(input.pointer.pointee.metadata)
        guard let index = input.bestStream(AVMEDIA_TYPE_AUDIO) else { throw AVPipelineError.noAudioStream(path: path) }
        streamIndex = index
        let stream = input.stream(index)
        let parameters = stream.pointee.codecpar!
        let codecID = Codec(parameters.pointee.codec_id)
        guard codecID.isPCM else {
            throw AVPipelineError.unsupportedCodec("'\(path)' holds \(codecID) audio; capture reads PCM (WAV) files only")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AVPipelineError.unsupportedCodec("\(codecID): FFmpeg has no decoder for it")
        }
        blockAlign = Int(parameters.pointee.block_align)
        decoder = try CodecContext(codec: codec)
        try check(avcodec_parameters_to_context(decoder.pointer, parameters), "avcodec_parameters_to_context")
        try decoder.open()
        // Other streams (cover art, a second track) are skipped at the demuxer.
        for other in 0..<input.streamCount where other != index { input.stream(other).pointee.discard = AVDISCARD_ALL }

        let context = decoder.pointer.pointee
        guard let sampleFormat = SampleFormat(rawFFmpegValue: context.sample_fmt.rawValue) else {
            throw AVPipelineError.unsupportedSampleFormat(String(cString: av_get_sample_fmt_name(context.sample_fmt)))
        }
        guard context.sample_rate > 0, context.ch_layout.nb_channels > 0 else {
            throw AVPipelineError.notAMediaFile(path: path, reason: "audio stream without sample rate or channels")
        }
        let format = AudioFormat(sampleFormat: sampleFormat, sampleRate: Int(context.sample_rate),
                                 channelLayout: ChannelLayout(context.ch_layout))
        outputFormat = format
        let declared = MediaTime(ffmpeg: stream.pointee.duration, timeBase: Rational(stream.pointee.time_base))
            .map { $0.converted(to: format.sampleTimeBase).value }
        let frames = declared.flatMap { $0 > 0 ? $0 : nil }
        declaredFrames = frames
        duration = frames.map { MediaTime(value: $0, timeBase: format.sampleTimeBase) } ?? input.duration
        fifo = try AudioFIFO(format: format, initialCapacity: options.chunkFrames * 2)
        packet = try Packet()
        frame = try Frame()
    }

    public func next() async throws -> PCMBuffer? {
        try checkCancellation()
        while fifo.count < options.chunkFrames && !inputEnded {
            try decodeMore()
        }
        guard fifo.count > 0 else {
            try verifyComplete()
            return nil
        }
        let chunk = try fifo.read(maximum: options.chunkFrames)
        chunk.pointer.pointee.pts = framesOut
        framesOut += Int64(chunk.sampleCount)
        if options.realtime { try await paceUntil(frames: framesOut - Int64(chunk.sampleCount)) }
        return PCMBuffer(frame: chunk, format: outputFormat)
    }

    /// Reads one packet of the audio stream and moves what it decodes into the FIFO.
    private func decodeMore() throws(AVPipelineError) {
        var gotPacket = false
        while !gotPacket {
            guard try input.read(into: packet) else {
                inputEnded = true
                _ = try decoder.send(packet: nil)
                try drainDecoder()
                return
            }
            gotPacket = packet.streamIndex == streamIndex
            if !gotPacket { packet.unref() }
        }
        defer { packet.unref() }
        if !options.strict, blockAlign > 0, packet.size % blockAlign != 0 {
            // The last packet of a file cut mid-sample: keep its whole sample frames.
            packet.pointer.pointee.size -= Int32(packet.size % blockAlign)
            cutMidSample = true
        }
        do {
            _ = try decoder.send(packet: packet.pointer)
            try drainDecoder()
        } catch .ffmpeg(_, let code, let message) {
            throw damaged(code: code, message: message)
        }
    }

    private func drainDecoder() throws(AVPipelineError) {
        while try decoder.receive(frame: frame) == .got {
            defer { frame.unref() }
            try fifo.write(frame.pointer)
        }
    }

    /// A PCM decoder only fails on a packet that is not whole samples: at the end of the file that
    /// is a file cut short, anywhere else damage.
    private func damaged(code: Int32, message: String) -> AVPipelineError {
        packet.unref()
        let atEnd = (try? input.read(into: packet)) == false
        return .invalidData(path: path, position: position,
                            reason: atEnd ? "file is truncated (its last sample is incomplete)" : message)
    }

    private var position: MediaTime { MediaTime(value: framesOut, timeBase: outputFormat.sampleTimeBase) }

    /// A WAV whose data chunk promises more audio than the file holds was cut short.
    private func verifyComplete() throws(AVPipelineError) {
        let short = declaredFrames.map { framesOut < $0 } ?? false
        guard short || cutMidSample, truncation == nil else { return }
        let missing = short ? declaredFrames.map { MediaTime(value: $0 - framesOut, timeBase: outputFormat.sampleTimeBase) } : nil
        if options.strict {
            throw .invalidData(path: path, position: position,
                               reason: "file is truncated: \(String(format1: missing?.seconds ?? 0)) s of declared audio missing")
        }
        // FFmpeg's WAV demuxer trims the declared length to what the file holds, so a cut often
        // shows only as a last sample frame cut short.
        truncation = Truncation(track: streamIndex, packetsRead: Int(framesOut), packetsExpected: short ? declaredFrames.map(Int.init) : nil,
                                end: position, missing: missing, unit: .sampleFrames)
    }

    private func paceUntil(frames: Int64) async throws {
        let clock = ContinuousClock()
        let start = startInstant ?? clock.now
        startInstant = start
        let due = start + .nanoseconds(frames * 1_000_000_000 / Int64(outputFormat.sampleRate))
        if due > clock.now {
            do { try await clock.sleep(until: due) } catch { throw AVPipelineError.cancelled }
        }
    }
}

extension String {
    /// A number with one decimal, without Foundation's formatter.
    init(format1 value: Double) {
        let tenths = Int64((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
