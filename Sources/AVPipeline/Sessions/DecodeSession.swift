/// What `avpipe decode` does, as a type: a file's audio track decoded to PCM in an audio file
/// (WAV, FLAC, AIFF, bare samples…) and/or its video track to pictures (Y4M or bare planes), or
/// its main tracks only decoded (to check that a file decodes, or to time decoding). Times are on
/// the file's timeline, which may not start at 0 (MPEG-TS), as ffmpeg's `-ss`; the start is exact.
/// The outputs succeed or fail together (`OutputGroup`).
///
/// ```swift
/// var session = DecodeSession(input: "movie.mp4")
/// session.audioOutput = "sound.wav"
/// try await session.run()
/// ```
public struct DecodeSession: Sendable {
    /// The input, as given: a path (`-` for standard input) or a URL as `Demuxer` takes it.
    public let input: String
    /// The audio file to write (`-`: WAV on standard output); nil: no audio is written.
    public var audioOutput: String?
    /// The audio file's format; nil: from `audioOutput`'s extension.
    public var audioFileFormat: Container?
    /// The samples written (format, rate, layout); nil fields keep the input's.
    public var audioFormat = AudioFormatRequest()
    /// Which audio track (0 = first); nil: the file's main one.
    public var audioTrack: Int?
    /// The picture file: `.y4m` (YUV4MPEG2) or `.yuv` (bare planes); `-`: Y4M on standard output.
    public var videoOutput: String?
    /// Decode the main audio and video tracks and write nothing (as ffmpeg `-f null -`).
    public var decodesOnly = false
    /// Where to start, from the input's start: the first picture is the one shown then, the first
    /// sample that instant's. At or past the input's end, `run` throws `.invalidOption`.
    public var start: MediaTime?
    /// How long to decode, to the sample; nil: to the end. A live input counts from its first sample.
    public var duration: MediaTime?
    /// Whether existing output files are replaced.
    public var overwrite = false
    /// How the input is opened.
    public var demuxerOptions = Demuxer.Options()
    /// Whether `.progress` events are sent (the pictures' when pictures are written, else the sound's).
    public var reportsProgress = true

    /// A decode of `input`; say what to write with `audioOutput`, `videoOutput` or `decodesOnly`.
    public init(input: String) {
        self.input = input
    }

    /// Decodes, sending `events` (progress, notices, warnings) from the running tasks, and returns
    /// once every output is complete and in place.
    public func run(events: (@Sendable (TranscodeEvent) -> Void)? = nil) async throws {
        let send: @Sendable (TranscodeEvent) -> Void = events ?? { _ in }
        let demuxer = try Demuxer(InputLocation(argument: input), options: demuxerOptions)
        try TranscodeMessages.ensureStart(start, within: demuxer.info)
        // An Opus track in Matroska starts where its pre-skip ends.
        let decodesAudio = audioOutput != nil || (decodesOnly && demuxer.info.hasAudio)
        let origin = (decodesAudio ? demuxer.presentationStart(ofAudio: try demuxer.audioTrackInfo(audioTrack)) : demuxer.info.startTime)
            ?? MediaTime(value: 0, timeBase: Rational(1, 1))
        let from = start.map { origin + $0 } ?? origin
        if let start, start.value > 0 { try demuxer.seek(to: from, mode: .exact) }
        try await withThrowingTaskGroup(of: String.self) { group in
            // Every track is asked for before any is read (an input that cannot seek is read once).
            let decodesVideo = videoOutput != nil || (decodesOnly && demuxer.info.hasVideo)
            let audioDecoder = decodesAudio ? try demuxer.audioTrack(audioTrack).decodeAudio() : nil
            let videoDecoder = decodesVideo ? try demuxer.videoTrack().decodeVideo() : nil
            if let audioDecoder {
                group.addTask {
                    guard let output = audioOutput else {
                        while try await audioDecoder.next() != nil {}
                        TranscodeMessages.skippedPackets(audioDecoder.statistics, kind: "audio").map(send)
                        return ""
                    }
                    let meter = reportsProgress && videoOutput == nil ? TranscodeProgressMeter(total: demuxer.info.duration, pictureRate: nil, send: send) : nil
                    try await writeAudio(audioDecoder, to: output, demuxer: demuxer, from: from, meter: meter, send)
                    return output
                }
            }
            if let videoDecoder {
                group.addTask {
                    guard let output = videoOutput else {
                        while try await videoDecoder.next() != nil {}
                        TranscodeMessages.skippedPackets(videoDecoder.statistics, kind: "video").map(send)
                        return ""
                    }
                    let meter = reportsProgress ? TranscodeProgressMeter(total: demuxer.info.duration, pictureRate: nil, send: send) : nil
                    try await writePictures(videoDecoder, to: output, demuxer: demuxer, end: duration.map { from + $0 }, meter: meter, send)
                    return output
                }
            }
            try await OutputGroup.allOrNothing(&group)
        }
        for message in [TranscodeMessages.liveEnd(demuxer, input: input), TranscodeMessages.truncations(demuxer.truncations, input: input)] {
            message.map(send)
        }
    }
}
