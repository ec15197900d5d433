internal import CFFmpeg

/// Encodes PCM to AAC-LC with FFmpeg's native `aac` encoder.
///
/// Any input sample format, rate and layout is accepted: libswresample converts to the encoder's
/// planar float (and to a rate/layout AAC supports), and an `AVAudioFifo` re-chunks the audio to the
/// encoder's fixed 1024-frame packets. The partial last frame and the encoder's delayed packets are
/// flushed at end of stream.
public final class AACEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    public typealias Buffer = EncodedAudioPacket<AAC>

    public struct Options: Sendable {
        /// Target bit rate in bits per second (all channels together). nil: 96 kb/s. Either way it is
        /// lowered to the most AAC-LC can carry for the stream (8 kHz mono carries 48 kb/s), as
        /// ffmpeg does; `bitrate` says what the encoder was set to.
        public var bitrate: Int? = nil
        /// Output sample rate; nil keeps the input's rate when AAC supports it, else the nearest rate it does.
        public var sampleRate: Int? = nil

        public init(bitrate: Int? = nil, sampleRate: Int? = nil) {
            self.bitrate = bitrate
            self.sampleRate = sampleRate
        }
    }

    public let outputFormat: EncodedAudioFormat
    /// The PCM format the encoder consumes after conversion (planar float).
    public let encoderInputFormat: AudioFormat
    /// The bit rate the encoder was set to: the one asked for, or the most AAC-LC carries when less.
    public let bitrate: Int

    private let upstream: Upstream
    private let encoder: CodecContext
    private let resampler: Resampler?
    private let fifo: AudioFIFO
    private let frameSize: Int
    private var converted: Frame?
    private var pending: Packet?
    private var nextPTS: Int64?
    private var upstreamEnded = false
    private var flushSent = false

    public init(upstream: Upstream, options: Options = Options()) throws {
        self.upstream = upstream
        let input = upstream.outputFormat
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no native 'aac' encoder")
        }
        let rate = try Self.chooseSampleRate(requested: options.sampleRate, input: input.sampleRate, codec: codec)
        let layout = try Self.chooseLayout(input.channelLayout, codec: codec)
        let bitrate = try Self.bitrate(options.bitrate, sampleRate: rate, channels: layout.channelCount)
        self.bitrate = bitrate
        encoderInputFormat = AudioFormat(sampleFormat: .fltp, sampleRate: rate, channelLayout: layout)

        encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(rate)
        context.pointee.bit_rate = Int64(bitrate)
        context.pointee.profile = avp_profile_aac_low()
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        context.pointee.flags |= avp_codec_flag_global_header()
        try layout.withAVChannelLayout { l throws(AVPipelineError) in
            try check(av_channel_layout_copy(&context.pointee.ch_layout, l), "av_channel_layout_copy")
        }
        try encoder.open()
        frameSize = Int(context.pointee.frame_size)
        outputFormat = EncodedAudioFormat(parameters: try CodecParameters(from: context),
                                          timeBase: encoderInputFormat.sampleTimeBase)
        resampler = input == encoderInputFormat ? nil : try Resampler(from: input, to: encoderInputFormat)
        fifo = try AudioFIFO(format: encoderInputFormat, initialCapacity: frameSize * 4)
    }

    public func next() async throws -> EncodedAudioPacket<AAC>? {
        while true {
            try checkCancellation()
            let packet = try pending ?? Packet()
            switch try encoder.receive(packet: packet) {
            case .got:
                pending = nil
                return EncodedAudioPacket(packet: packet, format: outputFormat)
            case .drained:
                return nil
            case .needsInput:
                pending = packet
            }
            if fifo.count >= frameSize || (upstreamEnded && fifo.count > 0) {
                try sendFrame()
            } else if upstreamEnded {
                guard !flushSent else { continue }
                flushSent = true
                _ = try encoder.send(frame: nil)
            } else if let pcm = try await upstream.next() {
                try push(pcm)
            } else {
                upstreamEnded = true
                try flushResampler()
            }
        }
    }

    private func push(_ pcm: PCMBuffer) throws {
        guard pcm.format == upstream.outputFormat else {
            throw AVPipelineError.unsupportedSampleFormat("input changed format mid-stream (\(upstream.outputFormat) → \(pcm.format))")
        }
        if nextPTS == nil {
            nextPTS = pcm.presentationTime?.converted(to: encoderInputFormat.sampleTimeBase).value ?? 0
        }
        guard let resampler else {
            try fifo.write(pcm.frame.pointer)
            return
        }
        let out = try scratch(capacity: resampler.maximumOutput(forInput: pcm.frameCount))
        let written = try resampler.convert(pcm.frame.pointer, into: out.pointer, capacity: out.sampleCount)
        try fifo.write(out.pointer, frameCount: written)
    }

    private func flushResampler() throws(AVPipelineError) {
        guard let resampler else { return }
        let capacity = resampler.maximumOutput(forInput: 0)
        guard capacity > 0 else { return }
        let out = try scratch(capacity: capacity)
        let written = try resampler.convert(nil, into: out.pointer, capacity: out.sampleCount)
        try fifo.write(out.pointer, frameCount: written)
    }

    private func sendFrame() throws(AVPipelineError) {
        let frame = try fifo.read(maximum: frameSize)
        let pts = nextPTS ?? 0
        frame.pointer.pointee.pts = pts
        nextPTS = pts + Int64(frame.sampleCount)
        guard try encoder.send(frame: frame.pointer) == .accepted else {
            throw .ffmpeg(call: "avcodec_send_frame", code: averrorEAGAIN, message: "encoder refused input while it had no output")
        }
    }

    /// A reusable conversion buffer holding at least `capacity` frames.
    private func scratch(capacity: Int) throws(AVPipelineError) -> Frame {
        if let converted, converted.sampleCount >= capacity { return converted }
        let frame = try Frame(audio: encoderInputFormat, frameCount: Swift.max(capacity, frameSize))
        converted = frame
        return frame
    }

    // MARK: - Choosing what the encoder is set to

    private static func chooseSampleRate(requested: Int?, input: Int, codec: UnsafePointer<AVCodec>) throws -> Int {
        var supported: [Int] = []
        if var rates = codec.pointee.supported_samplerates {
            while rates.pointee != 0 { supported.append(Int(rates.pointee)); rates += 1 }
        }
        if let requested {
            guard supported.isEmpty || supported.contains(requested) else {
                throw AVPipelineError.invalidOption(name: "sample rate", value: "\(requested)",
                                                    reason: "AAC supports \(supported.map(String.init).joined(separator: ", "))")
            }
            return requested
        }
        guard !supported.isEmpty, !supported.contains(input) else { return input }
        return supported.min(by: { abs($0 - input) < abs($1 - input) })!
    }

    /// The input's layout when AAC can code it, else an AAC layout with the same channel count.
    private static func chooseLayout(_ input: ChannelLayout, codec: UnsafePointer<AVCodec>) throws -> ChannelLayout {
        var supported: [ChannelLayout] = []
        if var layout = codec.pointee.ch_layouts {
            while layout.pointee.nb_channels != 0 { supported.append(ChannelLayout(layout.pointee)); layout += 1 }
        }
        let wanted = input.specified
        if supported.isEmpty || supported.contains(wanted) { return wanted }
        if let sameCount = supported.first(where: { $0.channelCount == wanted.channelCount }) { return sameCount }
        throw AVPipelineError.unsupportedSampleFormat(
            "AAC cannot code \(input.channelCount) channels (\(input)); it supports \(supported.map(\.description).joined(separator: ", "))")
    }

    public static var defaultBitrate: Int { 96_000 }

    /// The most AAC-LC carries: 6144 bits per channel per 1024-frame packet.
    public static func maximumBitrate(sampleRate: Int, channels: Int) -> Int { 6 * sampleRate * channels }

    /// The request, lowered to what AAC-LC carries (FFmpeg's encoder would clamp it too).
    private static func bitrate(_ requested: Int?, sampleRate: Int, channels: Int) throws -> Int {
        let maximum = maximumBitrate(sampleRate: sampleRate, channels: channels)
        guard let bitrate = requested else { return Swift.min(defaultBitrate, maximum) }
        guard bitrate > 0 else {
            throw AVPipelineError.invalidOption(name: "bitrate", value: "\(bitrate)", reason: "must be positive")
        }
        return Swift.min(bitrate, maximum)
    }
}
