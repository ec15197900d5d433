internal import CFFmpeg

/// PCM from the audio track of any file FFmpeg reads (MP3, FLAC, Opus, Vorbis, ALAC, AC-3, AAC,
/// a movie's sound…): demux → decode, optionally from an exact start for an exact duration.
///
/// The same chain composes by hand from `Demuxer`, `decodeAudio()` and `ending(at:)`; this is the
/// convenience for "give me the audio of that file", the input side of an encode. PCM comes out
/// in the decoder's format (convert with `resampled(to:)`; `AACEncoder` converts by itself), stamped
/// from 0 at the first sample delivered, as a capture's is: the file's own clock may start elsewhere
/// (an MP3 after its decoder delay, an MPEG-TS anywhere), and an encode starts its file at 0.
public final class AudioFileSource: SampleSource {
    /// PCM, in the decoder's format.
    public typealias Buffer = PCMBuffer

    /// Which track, and which part of it, to deliver.
    public struct Options: Sendable {
        /// Which audio track (0 = the file's first); nil: the file's main one.
        public var track: Int?
        /// Where to begin, counted from the file's start: the first sample is that instant's.
        public var start: MediaTime?
        /// How much to deliver, to the sample; nil: to the end.
        public var duration: MediaTime?
        /// How the file is opened and read.
        public var demuxer: Demuxer.Options

        /// Options for a track, from `start` for `duration`; nil: the main track, from its start to its end.
        public init(track: Int? = nil, start: MediaTime? = nil, duration: MediaTime? = nil, demuxer: Demuxer.Options = .init()) {
            self.track = track
            self.start = start
            self.duration = duration
            self.demuxer = demuxer
        }
    }

    public let outputFormat: AudioFormat
    /// What the file holds, as its demuxer found it.
    public let info: MediaInfo
    /// How long the delivered audio will be, when known.
    public let duration: MediaTime?
    private let demuxer: Demuxer
    private let decoder: AudioDecoder<DemuxedAudioTrack, AnyAudioCodec>
    private let source: any SampleSource<PCMBuffer>
    /// The file-timeline time of the first sample delivered, taken off every buffer's.
    private var origin: Int64?

    /// Opens `path` and prepares its audio track's decoder (and its exact seek when `start` is given).
    public convenience init(path: String, options: Options = .init()) throws {
        try self.init(.path(path), options: options)
    }

    /// Opens a file or a network address (`Demuxer(_:options:)`) and prepares its audio track's
    /// decoder (and its exact seek when `start` is given: a live input refuses it).
    public init(_ location: InputLocation, options: Options = .init()) throws {
        demuxer = try Demuxer(location, options: options.demuxer)
        info = demuxer.info
        decoder = try demuxer.audioTrack(options.track).decodeAudio()
        outputFormat = decoder.outputFormat
        // Times are on the file's timeline, which may not start at 0 (MPEG-TS), as ffmpeg's -ss; an
        // Opus track in Matroska starts where its pre-skip ends.
        let origin = demuxer.presentationStart(ofAudio: try demuxer.audioTrackInfo(options.track))
            ?? MediaTime(value: 0, timeBase: Rational(1, 1))
        let part = TimelinePart(origin: origin, start: options.start, duration: options.duration)
        try demuxer.seek(toStartOf: part)
        if let length = options.duration {
            source = decoder.ending(after: length, from: part.from)
        } else {
            source = decoder
        }
        let remaining = info.duration.map { $0.seconds - (options.start?.seconds ?? 0) }
        let seconds = [remaining, options.duration?.seconds].compactMap { $0 }.min().map { Swift.max($0, 0) }
        duration = seconds.map { MediaTime(seconds: $0) }
    }

    public func next() async throws -> PCMBuffer? {
        guard let buffer = try await source.next() else { return nil }
        let pts = buffer.frame.pointer.pointee.pts
        guard pts != avp_nopts_value() else { return buffer }
        let start = origin ?? pts
        origin = start
        buffer.frame.pointer.pointee.pts = pts - start
        return buffer
    }

    /// The file's embedded cover picture, if any (tags are in `info.metadata`).
    public var coverArt: CoverArt? { demuxer.coverArt }

    /// What the decoder skipped (damaged packets), so far.
    public var decoderStatistics: AudioDecoderStatistics { decoder.statistics }

    /// The track ended early because the file was cut (see `Demuxer.truncations`).
    public var truncations: [Truncation] { demuxer.truncations }
}
