import ArgumentParser
import AVPipeline

/// `avpipe frame`: pictures of a video at given times, as PNG (thumbnails).
struct Frame: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the picture shown at a time of a video as PNG: upright, proportions kept.",
        discussion: """
        Examples: avpipe frame in.mp4 --at 12.5 --out thumb.png --width 320
                  avpipe frame in.mp4 --at 0:10 --at 1:30 --out shot.png     (shot-001.png, shot-002.png)
                  avpipe frame in.mp4 --every 10 --out thumbs/%03d.png
        Each picture is the first one at or after the time (exact seek, as ffmpeg -ss T -i). A series \
        is numbered from 1: into the --out name's %d/%03d, or before its extension.
        """
    )

    @Argument(help: ArgumentHelp("Video file.", valueName: "input"))
    var input: String

    @Option(help: ArgumentHelp("Time of a picture (seconds or hh:mm:ss.xxx); repeat for several.", valueName: "time"))
    var at: [TimeArgument] = []

    @Option(help: ArgumentHelp("A picture every this many seconds, from the start.", valueName: "seconds"))
    var every: TimeArgument?

    @Option(name: .customLong("out"), help: ArgumentHelp("PNG file to write (a pattern or base name for a series).", valueName: "file"))
    var output: String

    @OptionGroup var picture: PictureOptions

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard !at.isEmpty || every != nil else { throw ValidationError("say when: --at TIME (repeatable) or --every SECONDS") }
        guard at.isEmpty || every == nil else { throw ValidationError("--at and --every exclude each other") }
        if let every, every.time.value <= 0 { throw ValidationError("--every must be positive") }
        let (width, height, videoTrack) = (picture.width, picture.height, picture.videoTrack)
        guard width == nil || height == nil else { throw ValidationError("give --width or --height, not both: the other follows the picture") }
        for (name, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...16384).contains(value) { throw ValidationError("\(name) must be between 1 and 16384 (got \(value))") }
        }
        guard Container(path: output) == .png else { throw ValidationError("--out writes PNG: name it .png (got '\(output)')") }
        try OutputPaths.ensureDistinct(input: input, output: output)
        if let videoTrack, videoTrack < 0 { throw ValidationError("--video-track counts from 0 (got \(videoTrack))") }
    }

    func run() async throws {
        let (input, output, times, every, overwrite) = (input, output, at.map(\.time), every?.time, outputOptions.overwrite)
        let (width, height, videoTrack, demuxerOptions) = (picture.width, picture.height, picture.videoTrack, inputOptions.demuxerOptions)
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
            let decoder = try demuxer.videoTrack(videoTrack).decodeVideo()
            let format = try PNGWriter.pixelFormat(for: decoder.outputFormat.pixelFormat)
            let pictures = try decoder.converted(VideoConversion(pixelFormat: format, width: width, height: height, upright: true))
            let origin = demuxer.info.startTime ?? MediaTime(value: 0, timeBase: Rational(1, 1))
            let schedule = try Self.times(times, every: every, duration: demuxer.info.duration)
            let names = Self.names(output, count: schedule.count)
            var written: [String] = []
            // A series goes into its folder, made when only its last level is missing (as hls does).
            let folder = OutputFolder.containing(output)
            let madeFolder = every != nil ? try OutputFolder.makeLastLevel(folder, for: output) : false
            do {
                for (time, name) in zip(schedule, names) {
                    try demuxer.seek(to: origin + time, mode: .exact)
                    guard let picture = try await pictures.next() else {
                        // Past the end the request is wrong; before it, the video is cut short or damaged.
                        if let duration = demuxer.info.duration, time < duration {
                            throw AVPipelineError.invalidData(path: input, position: time, reason: "no picture decodes at or after this time")
                        }
                        throw AVPipelineError.invalidOption(name: "--at", value: "\(time)",
                                                            reason: "the video ends before it (duration \(demuxer.info.duration.map { "\($0)" } ?? "unknown"))")
                    }
                    try PNGWriter.write(picture, to: name, overwrite: overwrite)
                    written.append(name)
                }
            } catch {
                for name in written where !StreamOutput.isStream(name) { unlink(name) }  // a series is written whole or not at all
                OutputFolder.removeIfMade(folder, made: madeFolder)
                throw error
            }
            printMessage(TranscodeMessages.skippedPackets(decoder.statistics, kind: "video"))
        }
    }

    /// The times asked for: as given, or every `every` from 0 to the end.
    static func times(_ times: [MediaTime], every: MediaTime?, duration: MediaTime?) throws -> [MediaTime] {
        guard let every else { return times }
        guard let duration else {
            throw AVPipelineError.invalidOption(name: "--every", value: "\(every)", reason: "the file does not say how long it is; use --at")
        }
        var result: [MediaTime] = []
        var step: Int64 = 0
        while true {
            let time = MediaTime(value: every.value * step, timeBase: every.timeBase)
            guard time < duration, result.count < 100_000 else { break }
            result.append(time)
            step += 1
        }
        return result
    }

    /// One name: as given. A series: numbered from 1 into a %d (%03d…) pattern, else before the extension.
    static func names(_ output: String, count: Int) -> [String] {
        let pattern = numberPattern(in: output)
        guard count > 1 || pattern != nil else { return [output] }
        func padded(_ number: Int, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return (1...max(count, 1)).map { number in
            if let (range, width) = pattern {
                return String(output[..<range.lowerBound]) + padded(number, width) + String(output[range.upperBound...])
            }
            let dot = output.lastIndex(of: ".")!
            return String(output[..<dot]) + "-" + padded(number, 3) + String(output[dot...])
        }
    }

    /// Where `%d` or `%0Nd` stands in `name`, and N.
    static func numberPattern(in name: String) -> (Range<String.Index>, width: Int)? {
        guard let percent = name.firstIndex(of: "%") else { return nil }
        var index = name.index(after: percent)
        var digits = ""
        while index < name.endIndex, name[index].isNumber {
            digits.append(name[index])
            index = name.index(after: index)
        }
        guard index < name.endIndex, name[index] == "d" else { return nil }
        return (percent..<name.index(after: index), Int(digits) ?? 0)
    }
}
