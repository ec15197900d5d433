import ArgumentParser
import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `avpipe probe`: what a media file holds, for people or (with `--json`) for programs.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the container, duration and tracks of a media file.",
        discussion: """
        Video sizes are display sizes: a track rotated by 90° or 270° reports width and height \
        swapped (coded_width/coded_height keep the stored size). rotation is clockwise in degrees.
        --json keys: format, format_long_name, duration (seconds), bitrate, tracks[] with index, \
        kind, codec, codec_tag, profile, sample_rate, channels, channel_layout, width, height, \
        coded_width, coded_height, rotation, mirrored, frame_rate, bitrate, duration, language; \
        tags (the file's descriptive tags: title, artist, album, track, disc, date, genre, comment…). \
        Unknown or inapplicable values are null.
        """
    )

    @Argument(help: ArgumentHelp("Media file to describe.", valueName: "input"))
    var input: String

    @Flag(help: "Print JSON with stable keys instead of text.")
    var json = false

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (input, json, strict) = (input, json, inputOptions.strict)
        let demuxerOptions = inputOptions.demuxerOptions
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
            let cut = ProbeReport.Cut(demuxer)
            // Under --strict a cut file is an error like any other (nothing on standard output),
            // whose message says what the file holds.
            if strict, let summary = cut.summary {
                throw AVPipelineError.invalidData(path: input, position: nil, reason: "truncated: \(summary)")
            }
            printOut(json ? ProbeReport.json(demuxer.info, cut: cut).text() + "\n" : ProbeReport.text(demuxer.info, cut: cut))
            if let summary = cut.summary { printWarning("'\(input)' is incomplete (\(summary)); --strict refuses such files") }
        }
    }
}

enum ProbeReport {
    /// What opening found missing from a cut file: frames present per indexed track, and why.
    struct Cut {
        var presentFrames: [Int: Int] = [:]
        var summary: String?

        init() {}

        init(_ demuxer: Demuxer) {
            let indexed = demuxer.indexedTruncations
            presentFrames = Dictionary(uniqueKeysWithValues: indexed.map { ($0.track, $0.packetsRead) })
            let parts = indexed.map { cut in
                let expected = cut.packetsExpected ?? cut.packetsRead
                return "track \(cut.track) holds \(cut.packetsRead) of its \(expected) packets, \(expected - cut.packetsRead) are missing"
            } + (demuxer.shortfall.map { ["the file is cut short: \($0)"] } ?? [])
            summary = parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    static func json(_ info: MediaInfo, cut: Cut = Cut()) -> JSONValue {
        .object([
            ("format", .string(info.formatName)),
            ("format_long_name", .optional(info.formatLongName)),
            ("duration", .optional(info.duration?.seconds)),
            ("bitrate", .optional(info.bitRate)),
            ("tags", .object(tags(info).map { ($0.key, .string($0.value)) })),
            ("tracks", .array(info.tracks.map { json($0, presentFrames: cut.presentFrames[$0.index]) })),
            ("incomplete", .optional(cut.summary)),
        ])
    }

    /// The descriptive tags, sorted by key.
    static func tags(_ info: MediaInfo) -> [(key: String, value: String)] {
        DescriptiveTags.of(info.metadata).sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }

    /// `presentFrames`: the frames a cut file still holds, shown instead of its index's count.
    static func json(_ track: TrackInfo, presentFrames: Int? = nil) -> JSONValue {
        let isVideo = track.kind == .video
        return .object([
            ("index", .int(track.index)),
            ("kind", .string(track.kind.rawValue)),
            ("codec", .string(track.codec.name)),
            ("codec_tag", .optional(track.codecTag)),
            ("profile", .optional(track.profile)),
            ("sample_rate", .optional(track.sampleRate)),
            ("channels", .optional(track.channels)),
            ("channel_layout", .optional(track.channelLayout?.description)),
            ("width", .optional(track.width)),
            ("height", .optional(track.height)),
            ("coded_width", .optional(track.codedWidth)),
            ("coded_height", .optional(track.codedHeight)),
            ("rotation", isVideo ? .int(track.rotation) : .null),
            ("mirrored", isVideo ? .bool(track.isMirrored) : .null),
            ("frame_rate", .optional(track.frameRate.map(decimal))),
            ("pixel_format", .optional(track.pixelFormat?.name)),
            ("color_range", .optional(track.colorRange)),
            ("color_space", .optional(track.colorSpace)),
            ("color_primaries", .optional(track.colorPrimaries)),
            ("color_transfer", .optional(track.colorTransfer)),
            ("frames", .optional(presentFrames ?? track.frameCount)),
            ("bitrate", .optional(track.bitRate)),
            ("duration", .optional(track.duration?.seconds)),
            ("language", .optional(track.language)),
        ])
    }

    static func text(_ info: MediaInfo, cut: Cut = Cut()) -> String {
        var header = "\(info.path): \(info.formatName)"
        if let long = info.formatLongName { header += " (\(long))" }
        header += ", duration \(info.duration.map { "\($0)" } ?? "unknown")"
        if let rate = info.bitRate { header += ", \(rate / 1000) kb/s" }
        var lines = [header]
        let tags = tags(info)
        if !tags.isEmpty { lines.append("  tags: " + tags.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")) }
        for track in info.tracks {
            var parts = ["\(track.codec)" + (track.profile.map { " (\($0))" } ?? "") + (track.codecTag.map { " [\($0)]" } ?? "")]
            switch track.kind {
            case .audio:
                if let rate = track.sampleRate { parts.append("\(rate) Hz") }
                if let layout = track.channelLayout { parts.append("\(layout)") }
            case .video:
                if let format = track.pixelFormat {
                    let colors = [track.colorRange, track.colorSpace, track.colorPrimaries, track.colorTransfer].compactMap { $0 }
                    parts.append(format.name + (colors.isEmpty ? "" : " (\(colors.joined(separator: ", ")))"))
                }
                if let width = track.width, let height = track.height { parts.append("\(width)x\(height)") }
                if let rate = track.frameRate, !track.isCoverArt { parts.append("\(String(twoDecimals: decimal(rate))) fps") }
                if track.rotation != 0 || track.isMirrored {
                    parts.append("rotated \(track.rotation)°" + (track.isMirrored ? " and mirrored" : "")
                                 + " (stored \(track.codedWidth ?? 0)x\(track.codedHeight ?? 0))")
                }
                if track.isCoverArt { parts.append("cover art") }
            default: break
            }
            if let rate = track.bitRate { parts.append("\(rate / 1000) kb/s") }
            if let present = cut.presentFrames[track.index], let declared = track.frameCount {
                parts.append("\(present) of \(declared) \(track.kind == .video ? "frames" : "packets") present")
            } else if track.kind == .video, let frames = track.frameCount {
                parts.append("\(frames) frames")
            }
            if let language = track.language { parts.append("language \(language)") }
            lines.append("  #\(track.index) \(track.kind): " + parts.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func decimal(_ rate: Rational) -> Double { Double(rate.numerator) / Double(rate.denominator) }
}

extension String {
    init(twoDecimals value: Double) {
        let hundredths = Int64((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = fraction == 0 ? "\(hundredths / 100)" : "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
