internal import CFFmpeg

/// Writes any number of encoded audio, video and subtitle streams into one MP4/M4A/MOV,
/// Matroska/WebM or MPEG-TS file with libavformat's muxers.
///
/// The Muxer *pulls*: it keeps exactly one waiting packet per input and always writes the one with
/// the earliest decode time, then asks that same input for its next packet. No input runs ahead
/// and nothing piles up (`MuxSummary.bufferHighWaterMark` ≤ number of tracks). By default the
/// index (`moov`) is moved before the media data (faststart); in fragmented mode the file is a
/// series of self-contained fragments written under the final name as they complete, so a process
/// killed mid-write leaves a file playable up to its last completed fragment.
///
/// Audio-only files are gapless: the movie timescale is the sample rate (FFmpeg's default,
/// milliseconds, rounds the edit list's end), so the muxer's edit list skips exactly the
/// encoder's priming (the first packet's negative time) and ends exactly where the last packet's
/// duration says the audio does. A single AAC track also gets the `iTunSMPB` tag with the same
/// numbers (`gapless`), which Apple's players read.
///
/// ```swift
/// let demuxer = try Demuxer(path: "in.mkv")
/// let video = try demuxer.videoTrack()   // an EncodedVideoPacket source (Annex B or length-prefixed)
/// let audio = try demuxer.audioTrack()   // an EncodedAudioPacket source (raw AAC or ADTS)
/// let muxer = try Muxer(path: "a.mp4")
/// try muxer.addVideo(video)
/// try muxer.addAudio(audio)
/// let summary = try await muxer.run()
/// ```
public final class Muxer {
    /// How the muxer writes its output: each field has a default, so a caller sets only what it
    /// changes.
    ///
    /// ```swift
    /// var options = Muxer.Options(container: .mp4)
    /// options.fragmented = true
    /// options.overwrite = true
    /// ```
    public struct Options: Sendable {
        /// Which container; nil picks it from the output's extension.
        public var container: Container?
        /// Put `moov` before `mdat` so playback can start before the whole file is read.
        public var faststart = true
        /// Write self-contained fragments (`moof`+`mdat`) that survive the process being killed.
        public var fragmented = false
        /// Longest fragment in fragmented mode (video fragments also start at each keyframe).
        public var fragmentDuration: MediaTime = .seconds(1)
        /// Replace an existing file at the path (otherwise `.outputExists`).
        public var overwrite = false
        /// Write no faster than real time, like a live recording (the media's own clock paces it).
        /// nil (the default) decides by the output: real time for a live stream (`rtmp://`,
        /// `rtmps://`, `srt://`, which is expected in real time), as fast as possible otherwise
        /// (`realtimeByDefault(for:)`); the `Muxer`'s own `options` say what it decided.
        public var realtime: Bool?
        /// The file's tags (title, artist, album…; FFmpeg's names), e.g. an input's `MediaInfo.metadata`.
        public var metadata: [String: String] = [:]
        /// Give each output track its input's tags (language, handler name…); the display matrix
        /// (rotation, mirroring) is always kept, since it is how the picture is meant to be shown.
        public var keepsTrackMetadata = true
        /// A cover picture for the file (MP4/M4A `covr`), e.g. an input's `Demuxer.coverArt`.
        public var coverArt: CoverArt?
        /// The file's chapters (times on the inputs' timeline), e.g. an input's `MediaInfo.chapters`.
        public var chapters: [Chapter] = []
        /// Files to attach (Matroska only, e.g. an input's `Demuxer.attachments`: the fonts its
        /// ASS subtitles use); other containers refuse them (see `Container.holdsAttachments`).
        public var attachments: [Attachment] = []
        /// The input time that becomes 0 in the output, e.g. an input's `MediaInfo.startTime`: an
        /// MPEG-TS usually starts seconds after 0, and a copy should not begin with that much nothing.
        /// Every track and chapter moves by the same amount, so the tracks keep their offsets to
        /// each other exactly. nil keeps the inputs' times as they are.
        public var timelineOrigin: MediaTime?
        /// How an `.m3u8` output (`Container.hls`) is cut and published.
        public var hls = HLSOptions()
        /// How a network output (`rtmp://`, `srt://`, `http://…/NAME.m3u8`) is connected,
        /// reconnected and copied locally.
        public var network = NetworkOptions()
        /// The inputs are live (a network stream, a capture device), so what is written cannot be
        /// made again: an input that fails part-way (a connection lost) leaves the output
        /// completed up to there and in place, and the error is still thrown; and an HLS output
        /// is written in place as it goes (see `HLSOptions.growing`). `realtime` implies the latter.
        public var liveInput = false

        /// The defaults (a faststart file of the container its name says, or `container`), each
        /// field then set as needed.
        public init(container: Container? = nil) {
            self.container = container
        }

        /// Whether an output at `location` is written in real time when `realtime` is nil: a live
        /// stream is (a server expects it at its own pace, and a receiver plays it as it comes).
        public static func realtimeByDefault(for location: OutputLocation) -> Bool { location.isLiveStream }

        /// `hls` as the output is written: an HLS stream of live or paced inputs that keeps no
        /// window is a recording, written in place as it goes (`HLSOptions.growing`).
        public var hlsAsWritten: HLSOptions {
            var hls = hls
            if liveInput || realtime == true, !hls.live { hls.growing = true }
            return hls
        }
    }

    /// Where the output is written.
    public let path: String
    /// The options the muxer was made with, as it applies them: `realtime` decided (never nil),
    /// `hls` as written (`Options.hlsAsWritten`).
    public let options: Options
    /// The container written, from the options or the path's extension.
    public let container: Container
    private let target: Destination
    /// Where `NetworkOptions.localCopy` is written, and in what.
    private let copyTarget: (destination: Destination, container: Container)?
    private var tracks: [MuxTrack] = []
    private var started = false
    /// The input time that becomes 0 in the output: `Options.timelineOrigin` (Matroska's writer
    /// then moves every track later by the same amount: see `startNonNegative`).
    private var origin: MediaTime?
    /// The priming and padding the finished file records (one AAC track, no video), after `run`.
    public private(set) var gapless: GaplessInfo?
    /// Stops `run()` cleanly from another task or thread (see `Control`).
    public let control = Control()

    /// Ends `run()` cleanly at the next packet, keeping a complete output (`Control.stop()`; from
    /// another task, call it on `control`).
    public func stop() { control.stop() }

    /// Checks the output (folder exists and is writable, no file in the way; an address's scheme
    /// and container) before any input is read.
    ///
    /// `path` is a file name or a network address: `rtmp://host/app/key` (and `rtmps://`) pushes
    /// FLV (H.264 + AAC), `srt://host:port` an MPEG-TS, and `http(s)://host/path/NAME.m3u8`
    /// uploads an HLS stream with HTTP PUT. The server is connected when `run()` starts. A stream is
    /// written in real time unless `Options.realtime` says otherwise (a stream is expected so).
    public init(path: String, options: Options = .init()) throws {
        guard let container = options.container ?? Container(path: path), container.isMultiTrack else {
            throw AVPipelineError.unsupportedFormat("cannot tell the container from '\(path)': use \(Container.extensionsText)")
        }
        if !options.attachments.isEmpty && !container.holdsAttachments {
            throw AVPipelineError.invalidOption(name: "attachments", value: options.attachments.map(\.filename).joined(separator: ", "),
                                                reason: "only Matroska (.mkv) files hold attachments")
        }
        guard options.fragmentDuration.value > 0 else {
            throw AVPipelineError.invalidOption(name: "fragment duration", value: "\(options.fragmentDuration)", reason: "must be positive")
        }
        var options = options
        options.realtime = options.realtime ?? Options.realtimeByDefault(for: OutputLocation(path, container: container))
        options.hls = options.hlsAsWritten
        self.path = path
        self.options = options
        self.container = container
        try options.network.validate()
        target = try Destination(path: path, container: container, inPlace: options.fragmented,
                                 overwrite: options.overwrite, hls: options.hls)
        if let copy = options.network.localCopy {
            guard let copyContainer = Container(path: copy), copyContainer.isMultiTrack, copyContainer.canFragment,
                  copyContainer != .hls, copyContainer != .flv, !OutputLocation(copy).isURL else {
                throw AVPipelineError.invalidOption(name: "local copy", value: copy, reason: "a local copy is a fragmented .mp4, .mov, .mkv or .ts file")
            }
            copyTarget = (try Destination(path: copy, container: copyContainer, inPlace: true, overwrite: options.overwrite, hls: options.hls),
                          copyContainer)
        } else {
            copyTarget = nil
        }
    }

    /// A network address written as `Muxer(url:)`: the same as `init(path:options:)`, but a local
    /// file name is refused, so code that means to stream says so.
    public convenience init(url: String, options: Options = .init()) throws {
        guard OutputLocation(url).isURL else {
            throw AVPipelineError.invalidOption(name: "url", value: url, reason: "not a network address (rtmp://, rtmps://, srt://, http(s)://…/NAME.m3u8)")
        }
        try self.init(path: url, options: options)
    }

    /// Adds an encoded audio stream; returns its track index.
    @discardableResult
    public func addAudio<Upstream: SampleSource, C: AudioCodecKind>(_ source: Upstream, label: String? = nil) throws -> Int
    where Upstream.Buffer == EncodedAudioPacket<C> {
        try addAudio(source, label: label, trackMetadata: nil)
    }

    /// `trackMetadata`: the track's tags when they are not the stream's own (an encoder's output
    /// carries its source track's); nil takes the stream's.
    @discardableResult
    func addAudio<Upstream: SampleSource, C: AudioCodecKind>(_ source: Upstream, label: String?, trackMetadata: [String: String]?) throws -> Int
    where Upstream.Buffer == EncodedAudioPacket<C> {
        let format = source.outputFormat
        return try add(MuxTrack(kind: .audio, label: label ?? "audio track \(tracks.count + 1)",
                                source: MuxSource(source), parameters: format.parameters, timeBase: format.timeBase,
                                metadata: options.keepsTrackMetadata ? trackMetadata ?? format.metadata : [:]))
    }

    /// Adds an encoded video stream (Annex B or length-prefixed H.264/H.265, …); returns its track index.
    ///
    /// A raw elementary stream (packets without timestamps) is timed here: at `frameRate` when
    /// given (over whatever its headers say: some declare nonsense), else at the frame rate its
    /// timing info declares, else `fallbackFrameRate`; presentation order comes from each picture's
    /// order count, so B-frames get correct timestamps.
    @discardableResult
    public func addVideo<Upstream: SampleSource, C: VideoCodecKind>(_ source: Upstream, label: String? = nil, frameRate: Rational? = nil,
                                                                    fallbackFrameRate: Rational = Rational(25, 1)) throws -> Int
    where Upstream.Buffer == EncodedVideoPacket<C> {
        for rate in [fallbackFrameRate] + (frameRate.map { [$0] } ?? []) where rate.numerator <= 0 || rate.denominator <= 0 {
            throw AVPipelineError.invalidOption(name: "frame rate", value: "\(rate)", reason: "must be positive")
        }
        let format = source.outputFormat
        return try add(MuxTrack(kind: .video, label: label ?? "video track \(tracks.count + 1)",
                                source: MuxSource(source), parameters: format.parameters, timeBase: format.timeBase,
                                fallbackFrameRate: fallbackFrameRate, forcedFrameRate: frameRate, declaredFrameRate: format.frameRate,
                                metadata: options.keepsTrackMetadata ? format.metadata : [:],
                                displayMatrix: format.displayMatrix, sampleAspectRatio: format.sampleAspectRatio))
    }

    /// Adds a subtitle stream (e.g. a `DemuxedSubtitleTrack`) as it is; returns its track index.
    /// MP4 and MOV hold mov_text; `Container.canHold(_:)` says whether a container takes a codec.
    @discardableResult
    public func addSubtitles<Upstream: SampleSource>(_ source: Upstream, label: String? = nil) throws -> Int
    where Upstream.Buffer == EncodedSubtitlePacket {
        let format = source.outputFormat
        return try add(MuxTrack(kind: .subtitle, label: label ?? "subtitle track \(tracks.count + 1)",
                                source: MuxSource(source), parameters: format.parameters, timeBase: format.timeBase,
                                metadata: options.keepsTrackMetadata ? format.metadata : [:]))
    }


    private func add(_ track: MuxTrack) throws -> Int {
        guard !started else { throw AVPipelineError.invalidOption(name: "track", value: track.label, reason: "the muxer is already running") }
        let codec = Codec(track.codecID), segments = options.hls.segments
        guard container.canHold(codec, segments: segments) else {
            if container == .hls && container.canHold(codec, segments: .fmp4) {
                throw AVPipelineError.unsupportedCodec("\(codec) cannot be stored in HLS's MPEG-TS segments; fMP4 segments can (--fmp4) (\(track.label))")
            }
            throw AVPipelineError.unsupportedCodec("\(codec) cannot be stored in \(container.rawValue) (\(track.label))")
        }
        tracks.append(track)
        return tracks.count - 1
    }

    /// Pulls every input to its end, or until `stop()`, and writes the file; it is complete and in
    /// place on return. Callable once.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> MuxSummary {
        guard !started else { throw AVPipelineError.invalidOption(name: "run", value: path, reason: "a muxer runs once") }
        started = true
        guard !tracks.isEmpty else { throw AVPipelineError.invalidOption(name: "tracks", value: "none", reason: "add at least one input") }

        origin = options.timelineOrigin
        var firsts: [Packet?] = []
        for (index, track) in tracks.enumerated() {
            try checkCancellation()
            try await track.prepare()
            firsts.append(try await nextPacket(of: index))
        }
        let startShift = startNonNegative(firsts)
        var queue = InterleavingQueue<Packet>(inputCount: tracks.count)
        for (index, packet) in firsts.enumerated() {
            if let packet { queue.put(packet, at: Self.decodeTime(packet, tracks[index]), input: index) }
        }
        // The chapters move with the tracks, the start shift included.
        let chapterOrigin = startShift.map { (origin ?? MediaTime(value: 0, timeBase: $0.start.timeBase)) + $0.start } ?? origin
        let chapters = chapterOrigin.map { origin in options.chapters.map { $0.shifted(back: origin) } } ?? options.chapters

        let interrupt = InterruptFlag()
        let connection = target.network.map { NetworkConnection(output: $0, timeout: options.network.timeout,
                                                                         certificates: options.network.certificates, interrupt: interrupt) }
        // The copy first: it is complete whatever the network does.
        let copy = try copyTarget.map { copy throws in
            try MuxWriter(path: copy.destination.writingPath, finalPath: options.network.localCopy!, container: copy.container,
                          tracks: tracks, metadata: options.metadata, chapters: chapters, coverArt: nil, startShift: startShift,
                          muxerOptions: localCopyOptions(copy.container, copy.destination))
        }
        let writer = try MuxWriter(path: target.writingPath, finalPath: path, stream: target.isStreamOutput, container: container,
                                   tracks: tracks, metadata: options.metadata, chapters: chapters, coverArt: storesCoverArt ? options.coverArt : nil,
                                   attachments: options.attachments, startShift: startShift, muxerOptions: muxerOptions, network: connection)
        let push = connection != nil || copy != nil
            ? NetworkPush(writer: writer, copy: copy, options: options.network, url: path, videoTracks: tracks.map { $0.kind == .video })
            : nil
        /// Completes the local copy (kept whatever happens next).
        func completeCopy() throws {
            guard let copy, let copyTarget else { return }
            try copy.finish()
            try copyTarget.destination.commit()
        }
        do {
            try await withTaskCancellationHandler {
                try await interleave(&queue, into: writer, push: push, progress: progress)
            } onCancel: {
                interrupt.raise()
            }
        } catch AVPipelineError.cancelled where options.fragmented || target.isLive {
            // Stopping a fragmented or live recording keeps what was recorded: the last fragment
            // or segment is closed and the file or playlist completed, then the caller still
            // learns it was cancelled.
            try completeCopy()
            if let push { try push.finishStream() } else { try writer.finish() }
            try target.verify(payloadBytes: writer.payloadBytes, live: options.hls.live, timeout: options.network.timeout,
                              certificates: options.network.certificates, interrupt: interrupt)
            try target.commit()
            throw AVPipelineError.cancelled
        } catch let error as AVPipelineError where options.liveInput && error.category == .input && writer.payloadBytes > 0 {
            // A live input cut off (its connection lost): what came before cannot be had again, so
            // it is kept, completed, and the run still fails.
            try completeCopy()
            if let push { try push.finishStream() } else { try writer.finish() }
            try target.verify(payloadBytes: writer.payloadBytes, live: options.hls.live, timeout: options.network.timeout,
                              certificates: options.network.certificates, interrupt: interrupt)
            try target.commit()
            throw Self.keeping(error, in: target.network == nil ? path : options.network.localCopy)
        }
        try completeCopy()
        if let failure = push?.failure { throw failure }
        if let push { try push.finishStream() } else { try writer.finish() }
        try target.verify(payloadBytes: writer.payloadBytes, live: options.hls.live, timeout: options.network.timeout,
                              certificates: options.network.certificates, interrupt: interrupt)
        try keepDisplayMatricesInInitSegment()
        try tagGapless(writer)
        try target.commit()
        return writer.summary(path: path, highWaterMark: queue.highWaterMark)
    }

    /// `error` of an input cut off, saying where what came before it is kept (`file`, when local).
    private static func keeping(_ error: AVPipelineError, in file: String?) -> AVPipelineError {
        guard let file else { return error }
        let kept = "; what came before is kept in '\(file)'"
        switch error {
        case .notReadable(let path, let reason): return .notReadable(path: path, reason: reason + kept)
        case .invalidData(let path, let position, let reason): return .invalidData(path: path, position: position, reason: reason + kept)
        default: return error
        }
    }

    /// Writes the earliest waiting packet and refills from that input, until every input ends.
    private func interleave(_ queue: inout InterleavingQueue<Packet>, into writer: MuxWriter, push: NetworkPush?,
                            progress: ((MediaTime) -> Void)?) async throws {
        var pacer = RealTimePacer()
        var connections = 1
        let tracks = tracks, realtime = options.realtime == true  // read once, not per packet
        while let (index, time, packet) = queue.popEarliest() {
            if control.isStopped { return }
            let track = tracks[index]
            // An immediate input checks for cancellation on every pull already.
            if !track.isImmediate { try checkCancellation() }
            if let push, push.connections != connections {
                // Paced again from the first packet after a reconnection.
                connections = push.connections
                pacer.restart()
            }
            // A stream given up on paces nothing: the local copy is written to the end at once.
            if realtime && push?.failure == nil { try pacer.wait(until: time, unless: control) }
            // Stopped: the output ends here, finished as if the inputs had.
            if control.isStopped { return }
            if let push {
                try await push.write(packet, track: index)
                if let progress, let position = push.position { progress(position) }
            } else {
                try writer.write(packet, track: index)
                if let progress, let position = writer.position { progress(position) }
            }
            // A copy job's inputs are pulled without suspending (see ImmediatePacketSource).
            // The written packet's owner, left blank by the writer, receives the track's next one.
            let next = track.isImmediate ? onTimeline(try track.nextImmediately(reusing: packet), of: index)
                                         : try await nextPacket(of: index)
            if let next {
                queue.put(next, at: Self.decodeTime(next, track), input: index)
            }
        }
        try checkCancellation()
    }

    /// Track `index`'s next packet, moved onto the output's timeline.
    private func nextPacket(of index: Int) async throws -> Packet? {
        onTimeline(try await tracks[index].next(), of: index)
    }

    /// `packet` of track `index` moved onto the output's timeline.
    private func onTimeline(_ packet: Packet?, of index: Int) -> Packet? {
        guard let packet else { return nil }
        if let origin, origin.value != 0 {
            let ticks = originTicks[index] ?? origin.converted(to: tracks[index].timeBase).value
            originTicks[index] = ticks
            shift(packet, back: ticks)
        }
        return packet
    }

    // Per-packet state, unchecked: one driver (see `SampleSource`).
    /// `origin` in each track's time base, worked out on its first packet.
    @exclusivity(unchecked) private var originTicks: [Int: Int64] = [:]

    private func shift(_ packet: Packet, back ticks: Int64) {
        let p = packet.pointer
        if p.pointee.pts != avp_nopts_value() { p.pointee.pts -= ticks }
        if p.pointee.dts != avp_nopts_value() { p.pointee.dts -= ticks }
    }

    /// Matroska stores no time before 0 that its readers agree on (FFmpeg reads such a block
    /// without a timestamp), and libavformat's own shift, decided on the first packet written,
    /// misses a track whose first packet comes later (AAC priming behind a video's first frame).
    /// So every track moves later by the same amount, until the earliest first packet shows at 0:
    /// that packet is returned, and the writer adds the shift once a packet is in its stream's
    /// time base (in a track's own, a video encoder's 1/25 s, it would be rounded to a whole frame).
    private func startNonNegative(_ firsts: [Packet?]) -> StartShift? {
        guard container.isMatroska else { return nil }
        let starts = firsts.enumerated().compactMap { index, packet in
            packet.flatMap { MediaTime(ffmpeg: $0.pointer.pointee.pts, timeBase: tracks[index].timeBase) }.map { (index, $0) }
        }
        guard let (track, earliest) = starts.min(by: { $0.1 < $1.1 }), earliest.value < 0 else { return nil }
        return StartShift(track: track, start: earliest)
    }

    /// FFmpeg 5.1's hls muxer drops the video tracks' display matrices on their way to the fMP4
    /// segments (see `TrackHeaderMatrix`): a VOD stream's init segment, not yet published, gets
    /// them written in. A live stream's is read as soon as it is written, so it goes without
    /// (`CopyPlan` names the loss).
    private func keepDisplayMatricesInInitSegment() throws(AVPipelineError) {
        guard case .hlsFolder(let folder) = target, !folder.inPlace, options.hls.segments == .fmp4,
              avp_hls_keeps_display_matrix() == 0 else { return }
        for (index, track) in tracks.enumerated() {
            if let matrix = track.displayMatrix {
                try TrackHeaderMatrix.write(matrix, track: index, intoFileAt: "\(folder.writingFolder)/\(folder.initName)")
            }
        }
    }

    /// MP4 and M4A keep a cover in their `covr` tag; MOV and Matroska have no such place.
    private var storesCoverArt: Bool {
        (container == .mp4 || container == .m4a) && options.coverArt?.bytes.isEmpty == false
    }

    /// The one audio track of an audio-only output, when the file can tell where its audio lies.
    private var gaplessTrack: (index: Int, sampleRate: Int)? {
        guard !tracks.contains(where: { $0.kind == .video }),
              let index = tracks.firstIndex(where: { $0.kind == .audio }) else { return nil }
        let rate = Int(tracks[index].parameters.pointer.pointee.sample_rate)
        return rate > 0 ? (index, rate) : nil
    }

    /// Adds `iTunSMPB` to a finished single-AAC-track file whose first packet carries priming
    /// (a fragmented one's numbers are only kept in `gapless`).
    private func tagGapless(_ writer: MuxWriter) throws(AVPipelineError) {
        guard container == .mp4 || container == .m4a, tracks.count == 1, let (index, rate) = gaplessTrack,
              tracks[index].codecID == AV_CODEC_ID_AAC,
              let info = writer.gapless(ofTrack: index, frameSize: Int(tracks[index].parameters.pointer.pointee.frame_size),
                                        sampleRate: rate) else { return }
        // A fragmented file only reports them: `FragmentedRecording.finish` writes them into a regular copy.
        if !options.fragmented { try ITunesFreeformTag.insert(name: "iTunSMPB", value: info.iTunSMPB, intoFileAt: target.writingPath) }
        gapless = info
    }

    private var muxerOptions: [String: String] {
        var options = fileOptions
        if container.isISOBMFF, let (_, rate) = gaplessTrack { options["movie_timescale"] = "\(rate)" }
        return options
    }

    private var fileOptions: [String: String] { options.muxerFlags(container, target, fragmented: options.fragmented) }

    /// The muxer's options for the local copy (`NetworkOptions.localCopy`): see `Options.localCopyFlags`.
    private func localCopyOptions(_ container: Container, _ target: Destination) -> [String: String] {
        options.localCopyFlags(container, target)
    }

    private static func decodeTime(_ packet: Packet, _ track: MuxTrack) -> MediaTime {
        MediaTime(value: packet.pointer.pointee.dts, timeBase: track.timeBase)
    }
}
