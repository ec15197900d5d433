import Foundation
import Testing
import TestSupport

/// The table behind `BadInputMatrixTests`: every subcommand × every way its input, options or
/// output can be wrong. Each row arranges its files in a fresh folder and says how the run must end.
struct MatrixCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable, Equatable {
        /// Exactly this exit code.
        case exit(Int32)
        /// Damaged input: either a clean success (outputs valid) or exactly this failure code.
        case succeedsOrExits(Int32)
    }

    /// How the command is started: as is, with its output folder read-only, or on a tiny disk.
    enum Runner: Sendable { case plain, readOnlyOutputFolder, fullDisk, fileSizeLimit }

    struct Invocation {
        var arguments: [String]
        /// Extra environment (play gets SDL's dummy audio driver: a device without a sound server).
        var environment: [String: String] = [:]
        /// Files a successful run must leave (each checked with ffprobe).
        var outputs: [String]
        var runner: Runner = .plain
        /// What the command reads on standard input (its input is then `-`).
        var standardInput: Data?
    }

    let name: String
    let arrange: @Sendable (TemporaryDirectory) throws -> Invocation
    let outcome: Outcome
    var testDescription: String { name }
}

/// Where each subcommand reads and writes, so one row can be applied to all of them.
enum Subcommand: String, CaseIterable, Sendable {
    case encode, demux, probe, mux, remux, hls, decode, play, frame

    var writes: Bool { self != .probe && self != .play }

    /// The media kinds whose intact sample this command accepts (the truncation rows use them).
    /// Play runs in real time, so it gets a few containers only.
    func reads(_ media: SampleMedia) -> Bool {
        switch self {
        case .probe: true
        case .encode, .decode: media.hasAudio  // encode reads any audio, a WAV through capture
        case .play: [.mp4, .adts, .mkv].contains(media)
        case .frame: media.hasVideo
        default: media != .wav
        }
    }

    /// The input name a user would give this command when nothing else is known.
    var typicalInputName: String {
        switch self {
        case .encode: "in.wav"
        case .mux: "in.h264"
        case .decode, .play: "in.m4a"
        default: "in.mp4"
        }
    }

    /// Arguments reading `input` (holding `media`, when known) and writing into `outputFolder`.
    func invocation(input: String, media: SampleMedia?, outputFolder: String) -> MatrixCase.Invocation {
        let hasAudio = media?.hasAudio ?? true, hasVideo = media?.hasVideo ?? true
        switch self {
        case .encode:
            return .init(arguments: ["encode", "--in", input, "--out", "\(outputFolder)/o.aac"], outputs: ["\(outputFolder)/o.aac"])
        case .demux:
            var arguments = ["demux", input], outputs: [String] = []
            if hasAudio { outputs.append("\(outputFolder)/o.aac"); arguments += ["--audio", outputs.last!] }
            if hasVideo { outputs.append("\(outputFolder)/o.\(media?.videoExtension ?? "h264")"); arguments += ["--video", outputs.last!] }
            return .init(arguments: arguments, outputs: outputs)
        case .probe:
            return .init(arguments: ["probe", input], outputs: [])
        case .mux:
            return .init(arguments: ["mux", hasVideo ? "--video" : "--audio", input, "--out", "\(outputFolder)/o.mp4"],
                         outputs: ["\(outputFolder)/o.mp4"])
        case .remux:
            return .init(arguments: ["remux", input, "\(outputFolder)/o.mp4"], outputs: ["\(outputFolder)/o.mp4"])
        case .hls:
            return .init(arguments: ["hls", input, "--out", "\(outputFolder)/o.m3u8"], outputs: ["\(outputFolder)/o.m3u8"])
        case .decode:
            return .init(arguments: ["decode", input, "--out", "\(outputFolder)/o.wav"], outputs: ["\(outputFolder)/o.wav"])
        case .play:
            // No display: the sound alone, wherever the suite runs (a window is PlayWindowTests' job).
            return .init(arguments: ["play", input], environment: ["SDL_AUDIODRIVER": "dummy", "DISPLAY": "", "WAYLAND_DISPLAY": ""],
                         outputs: [])
        case .frame:
            return .init(arguments: ["frame", input, "--at", "0", "--out", "\(outputFolder)/o.png"], outputs: ["\(outputFolder)/o.png"])
        }
    }
}

/// Where a truncated copy is cut, relative to the intact file's size.
enum Cut: Sendable, CaseIterable {
    case insideFirstHeader, quarter, half, threeQuarters, lastByte

    func offset(size: Int) -> Int {
        switch self {
        case .insideFirstHeader: min(12, size - 1)
        case .quarter: size / 4
        case .half: size / 2
        case .threeQuarters: size * 3 / 4
        case .lastByte: size - 1
        }
    }
}

enum BadInputMatrix {
    static let usage: Int32 = 64, input: Int32 = 66, unsupported: Int32 = 69, output: Int32 = 73

    static var cases: [MatrixCase] {
        unusableInputs + truncatedInputs + strictTruncatedInputs + wrongExtensions + unsupportedCodecs + absurdOptions + outputFaults
            + standardInputs + standardOutputs + videoEncodeRows + networkInputs + networkOutputRows
    }

    /// Copies `source` into `folder` under `name` and returns the copy's path.
    static func copy(_ source: String, to folder: TemporaryDirectory, as name: String) throws -> String {
        try FileManager.default.copyItem(atPath: source, toPath: folder.file(name))
        return folder.file(name)
    }

    // MARK: Inputs that are not media at all

    static var unusableInputs: [MatrixCase] {
        let kinds: [(String, @Sendable (String) throws -> Void)] = [
            ("missing file", { _ in }),
            ("directory", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }),
            ("empty file", { _ = FileManager.default.createFile(atPath: $0, contents: Data()) }),
            ("random bytes", { try SampleMedia.randomBytes(count: 65_536).write(to: URL(fileURLWithPath: $0)) }),
            ("text file", { try Data(String(repeating: "not media at all\n", count: 500).utf8).write(to: URL(fileURLWithPath: $0)) }),
            // A playlist that points at another local file: refused by the input policy.
            ("HLS playlist pointing at /etc/passwd", {
                try Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n/etc/passwd\n#EXT-X-ENDLIST\n".utf8)
                    .write(to: URL(fileURLWithPath: $0))
            }),
        ]
        return Subcommand.allCases.flatMap { command in
            kinds.map { kind, make in
                MatrixCase(name: "\(command) ← \(kind)", arrange: { folder in
                    let input = folder.file(command.typicalInputName)
                    try make(input)
                    return command.invocation(input: input, media: nil, outputFolder: folder.path)
                }, outcome: .exit(input))
            }
        }
    }

    // MARK: Every container we read, intact (the control) and cut at several points

    static var truncatedInputs: [MatrixCase] {
        Subcommand.allCases.flatMap { command in
            SampleMedia.allCases.filter(command.reads).flatMap { media in
                let intact = MatrixCase(name: "\(command) ← intact \(media.rawValue)", arrange: { folder in
                    let input = try copy(media.path, to: folder, as: media.fileName)
                    return command.invocation(input: input, media: media, outputFolder: folder.path)
                }, outcome: .exit(0))
                return [intact] + Cut.allCases.map { cut in
                    MatrixCase(name: "\(command) ← \(media.rawValue) cut at \(cut)", arrange: { folder in
                        let source = try media.path
                        let input = folder.file(media.fileName)
                        try SampleMedia.truncate(source, to: cut.offset(size: fileSize(source)), as: input)
                        return command.invocation(input: input, media: media, outputFolder: folder.path)
                    }, outcome: .succeedsOrExits(input))
                }
            }
        }
    }

    /// Cut containers that say how long they are, under `--strict`: refused by every command that
    /// reads to the end (`frame` stops at its picture, `play` runs in real time).
    static var strictTruncatedInputs: [MatrixCase] {
        [Subcommand.encode, .demux, .probe, .mux, .remux, .hls, .decode].flatMap { command in
            [SampleMedia.mp4Faststart, .mkv, .ts].filter(command.reads).map { media in
                MatrixCase(name: "\(command) --strict ← \(media.rawValue) cut at half", arrange: { folder in
                    let source = try media.path
                    let input = folder.file(media.fileName)
                    try SampleMedia.truncate(source, to: Cut.half.offset(size: fileSize(source)), as: input)
                    var invocation = command.invocation(input: input, media: media, outputFolder: folder.path)
                    invocation.arguments.append("--strict")
                    return invocation
                }, outcome: .exit(input))
            }
        }
    }

    // MARK: Content and name disagree: the content decides

    static var wrongExtensions: [MatrixCase] {
        func row(_ name: String, _ outcome: MatrixCase.Outcome,
                 _ arrange: @escaping @Sendable (TemporaryDirectory) throws -> MatrixCase.Invocation) -> MatrixCase {
            MatrixCase(name: "wrong extension: \(name)", arrange: arrange, outcome: outcome)
        }
        return [
            // The file is sniffed, not its name: an MP4's sound encodes whatever it is called.
            row("encode ← MP4 named .wav", .exit(0)) { d in
                Subcommand.encode.invocation(input: try copy(SampleMedia.mp4.path, to: d, as: "in.wav"), media: nil, outputFolder: d.path)
            },
            row("demux ← WAV named .mp4", .exit(unsupported)) { d in
                Subcommand.demux.invocation(input: try copy(SampleMedia.wav.path, to: d, as: "in.mp4"), media: .wav, outputFolder: d.path)
            },
            row("demux ← MKV named .mp4", .exit(0)) { d in
                Subcommand.demux.invocation(input: try copy(SampleMedia.mkv.path, to: d, as: "in.mp4"), media: .mkv, outputFolder: d.path)
            },
            row("probe ← TS named .wav", .exit(0)) { d in
                Subcommand.probe.invocation(input: try copy(SampleMedia.ts.path, to: d, as: "in.wav"), media: .ts, outputFolder: d.path)
            },
            row("mux ← ADTS named .h264 as video", .exit(input)) { d in
                Subcommand.mux.invocation(input: try copy(SampleMedia.adts.path, to: d, as: "in.h264"), media: nil, outputFolder: d.path)
            },
            row("mux ← H.265 named .h264", .exit(0)) { d in
                Subcommand.mux.invocation(input: try copy(SampleMedia.h265.path, to: d, as: "in.h264"), media: .h265, outputFolder: d.path)
            },
            row("remux ← MOV named .aac", .exit(0)) { d in
                Subcommand.remux.invocation(input: try copy(SampleMedia.mov.path, to: d, as: "in.aac"), media: .mov, outputFolder: d.path)
            },
            row("decode ← raw H.264 (no audio) named .m4a", .exit(input)) { d in
                Subcommand.decode.invocation(input: try copy(SampleMedia.h264.path, to: d, as: "in.m4a"), media: nil, outputFolder: d.path)
            },
            row("demux: H.264 track to a .h265 file", .exit(usage)) { d in
                let input = try copy(SampleMedia.mp4.path, to: d, as: "in.mp4")
                return .init(arguments: ["demux", input, "--video", d.file("o.h265")], outputs: [])
            },
        ]
    }

    // MARK: Media we read but cannot put where we were asked to

    static var unsupportedCodecs: [MatrixCase] {
        func row(_ name: String, _ arguments: @escaping @Sendable (TemporaryDirectory) throws -> [String]) -> MatrixCase {
            MatrixCase(name: "unsupported codec: \(name)", arrange: { .init(arguments: try arguments($0), outputs: []) },
                       outcome: .exit(unsupported))
        }
        let noDevice = MatrixCase(name: "unsupported: play on a device that does not exist", arrange: { d in
            var invocation = Subcommand.play.invocation(input: try copy(SampleMedia.m4a.path, to: d, as: "in.m4a"), media: .m4a,
                                                        outputFolder: d.path)
            invocation.arguments += ["--device", "no such device"]
            return invocation
        }, outcome: .exit(unsupported))
        return [noDevice] + [
            row("demux Opus → .aac") { d in ["demux", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "--audio", d.file("o.aac")] },
            row("demux VP8 → .h264") { d in ["demux", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "--video", d.file("o.h264")] },
            row("demux VP8 + AAC-less → both") { d in
                ["demux", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "--audio", d.file("o.aac"), "--video", d.file("o.h264")]
            },
            row("mux Opus → .m4a") { d in ["mux", "--audio", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "--out", d.file("o.m4a")] },
            row("remux Opus → .m4a") { d in ["remux", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), d.file("o.m4a")] },
            pcmIntoMP4("remux PCM → .mp4") { d in ["remux", try copy(SampleMedia.wav.path, to: d, as: "in.wav"), d.file("o.mp4")] },
            pcmIntoMP4("mux PCM → .mp4") { d in ["mux", "--audio", try copy(SampleMedia.wav.path, to: d, as: "in.wav"), "--out", d.file("o.mp4")] },
        ]
    }

    /// FFmpeg 5.1's MP4 muxer refuses PCM, 7.1's writes it: this system's ffmpeg copy says which
    /// avpipe must do (refuse, or write `o.mp4`).
    static func pcmIntoMP4(_ name: String, _ arguments: @escaping @Sendable (TemporaryDirectory) throws -> [String]) -> MatrixCase {
        let writes = ffmpegCopiesPCMIntoMP4
        return MatrixCase(name: "unsupported codec: \(name)",
                          arrange: { .init(arguments: try arguments($0), outputs: writes ? [$0.file("o.mp4")] : []) },
                          outcome: .exit(writes ? 0 : unsupported))
    }

    static let ffmpegCopiesPCMIntoMP4: Bool = {
        let folder = TemporaryDirectory()
        guard let wav = try? copy(SampleMedia.wav.path, to: folder, as: "in.wav") else { return false }
        return (try? Subprocess.run("ffmpeg", ["-v", "error", "-i", wav, "-c", "copy", folder.file("o.mp4")]))?.status == 0
    }()

    // MARK: Option values no run could honour

    static var absurdOptions: [MatrixCase] {
        let rows: [(Subcommand, SampleMedia, [String])] = [
            (.encode, .wav, ["--bitrate", "0"]),
            (.encode, .wav, ["--bitrate=-1"]),
            (.encode, .wav, ["--bitrate", "99999999999999999999999"]),
            (.encode, .wav, ["--bitrate", "1000000000"]),
            (.encode, .wav, ["--chunk-frames", "0"]),
            (.encode, .wav, ["--chunk-frames", "2000000000"]),
            (.encode, .wav, ["--format", "ogg"]),
            (.encode, .wav, ["--no-such-option"]),
            (.demux, .mp4, ["--audio-track=-1"]),
            (.demux, .mp4, ["--audio-track", "7"]),
            (.demux, .mp4, ["--video-track", "99999999999999999999"]),
            (.demux, .mp4, ["--video-track", "1"]),
            (.probe, .mp4, ["--no-such-option"]),
            (.mux, .h264, ["--fps", "0"]),
            (.mux, .h264, ["--fps=-25"]),
            (.mux, .h264, ["--fps", "1/0"]),
            (.mux, .h264, ["--fps", "100000"]),
            (.mux, .h264, ["--fps", "fast"]),
            (.remux, .mp4, ["--audio-only", "--video-only"]),
            (.remux, .mp4, ["--no-such-option"]),
            (.decode, .m4a, ["--rate", "0"]),
            (.decode, .m4a, ["--rate", "100000000"]),
            (.decode, .m4a, ["--channels", "0"]),
            (.decode, .m4a, ["--channels", "65"]),
            (.decode, .m4a, ["--sample-format", "s24"]),
            (.play, .m4a, ["--volume", "2"]),
            (.play, .m4a, ["--volume=-1"]),
            (.play, .m4a, ["--volume", "nan"]),
            // A start past the end (the samples last a few seconds): nothing to write, as frame --at.
            (.encode, .wav, ["--start", "1000"]),
            (.decode, .m4a, ["--start", "1000"]),
            (.play, .m4a, ["--start", "1000"]),
            // A negative value as its own word (the parser took "-1" for an option: "Missing value").
            (.play, .m4a, ["--volume", "-1"]),
            (.decode, .m4a, ["--start", "-5"]),
            (.decode, .m4a, ["--audio-track", "-1"]),
            (.encode, .wav, ["--bitrate", "-96k"]),
            (.encode, .wav, ["--duration", "-1:30"]),
            (.remux, .mp4, ["--audio-track", "-1"]),
            (.frame, .mp4, ["--width", "-320"]),
            (.hls, .mp4, ["--segment", "-.5"]),
        ]
        return rows.map { command, media, options in
            MatrixCase(name: "\(command) \(options.joined(separator: " "))", arrange: { d in
                var invocation = command.invocation(input: try copy(media.path, to: d, as: media.fileName), media: media,
                                                    outputFolder: d.path)
                invocation.arguments += options
                invocation.outputs = []
                return invocation
            }, outcome: .exit(usage))
        } + [
            MatrixCase(name: "mux with no input", arrange: { d in .init(arguments: ["mux", "--out", d.file("o.mp4")], outputs: []) },
                       outcome: .exit(usage)),
            MatrixCase(name: "demux with no output", arrange: { d in
                .init(arguments: ["demux", try copy(SampleMedia.mp4.path, to: d, as: "in.mp4")], outputs: [])
            }, outcome: .exit(usage)),
            MatrixCase(name: "no subcommand argument", arrange: { _ in .init(arguments: ["remux"], outputs: []) }, outcome: .exit(usage)),
        ]
    }

    // MARK: Inputs given as URLs that cannot be read

    /// A server that accepts connections and never answers, for the whole run of the matrix.
    nonisolated(unsafe) static let silentServer = try! LoopbackListener()

    /// Every command reading a URL that refuses the connection, one of a scheme avpipe does not
    /// read, and one whose server never answers (`--timeout 1`): exit 66, nothing written.
    static var networkInputs: [MatrixCase] {
        let kinds: [(String, @Sendable () throws -> String, [String])] = [
            ("refused connection", { "http://127.0.0.1:\(try freePort())/in.mp4" }, []),
            ("unreadable scheme", { "gopher://127.0.0.1/in.mp4" }, []),
            ("silent server", { silentServer.url("in.mp4") }, ["--timeout", "1"]),
        ]
        return Subcommand.allCases.flatMap { command in
            kinds.map { kind, url, options in
                MatrixCase(name: "\(command) ← URL: \(kind)", arrange: { folder in
                    var invocation = command.invocation(input: try url(), media: nil, outputFolder: folder.path)
                    invocation.arguments += options
                    return invocation
                }, outcome: .exit(input))
            }
        } + [
            MatrixCase(name: "decode --timeout 0", arrange: { folder in
                var invocation = Subcommand.decode.invocation(input: silentServer.url("in.mp4"), media: nil, outputFolder: folder.path)
                invocation.arguments += ["--timeout", "0"]
                invocation.outputs = []
                return invocation
            }, outcome: .exit(usage)),
        ]
    }

    // MARK: Video encode settings no run could honour

    /// `encode` of a movie into MP4 with a video setting out of range, an encoder this FFmpeg lacks,
    /// or a raw H.264 output from a file with no pictures: refused, nothing written.
    static var videoEncodeRows: [MatrixCase] {
        let rows: [([String], Int32)] = [
            (["--crf", "52.5e3"], usage), (["--gop", "-1"], usage), (["--video-bitrate", "0"], usage),
            (["--height", "99999"], usage), (["--fps", "0"], usage), (["--bframes", "17"], usage),
            (["--encoder-option", "bogus"], usage), (["--encoder-option", "no-such-option=1"], usage),
            (["--video-codec", "no-such-encoder"], unsupported), (["--video-codec", "copy", "--crf", "20"], usage),
        ]
        return rows.map { options, code in
            MatrixCase(name: "encode movie \(options.joined(separator: " "))", arrange: { d in
                .init(arguments: ["encode", "--in", try copy(SampleMedia.mp4.path, to: d, as: "in.mp4"), "--out", d.file("o.mp4")] + options,
                      outputs: [])
            }, outcome: .exit(code))
        } + [
            MatrixCase(name: "encode audio-only file to .h264", arrange: { d in
                .init(arguments: ["encode", "--in", try copy(SampleMedia.m4a.path, to: d, as: "in.m4a"), "--out", d.file("o.h264")], outputs: [])
            }, outcome: .exit(input)),
        ]
    }

    // MARK: Network outputs that cannot be written

    /// A stream or upload to a port nothing listens on (refused at once: exit 73), and codecs RTMP
    /// cannot carry (refused before connecting: exit 69).
    static var networkOutputRows: [MatrixCase] {
        func row(_ name: String, _ code: Int32, _ arguments: @escaping @Sendable (TemporaryDirectory, UInt16) throws -> [String]) -> MatrixCase {
            MatrixCase(name: "network output: \(name)", arrange: { d in .init(arguments: try arguments(d, try freePort()), outputs: []) },
                       outcome: .exit(code))
        }
        return [
            row("remux → rtmp:// refused", output) { d, port in ["remux", try copy(SampleMedia.mp4.path, to: d, as: "in.mp4"), "rtmp://127.0.0.1:\(port)/live/x"] },
            row("encode → rtmp:// refused", output) { d, port in
                ["encode", "--in", try copy(SampleMedia.mp4.path, to: d, as: "in.mp4"), "--out", "rtmp://127.0.0.1:\(port)/live/x"]
            },
            row("hls → http:// refused", output) { d, port in
                ["hls", try copy(SampleMedia.mp4.path, to: d, as: "in.mp4"), "--out", "http://127.0.0.1:\(port)/x/index.m3u8"]
            },
            row("remux VP8 + Opus → rtmp://", unsupported) { d, port in
                ["remux", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "rtmp://127.0.0.1:\(port)/live/x"]
            },
            row("encode --video-codec copy VP8 → rtmp://", unsupported) { d, port in
                ["encode", "--in", try copy(SampleMedia.opusVP8, to: d, as: "in.mkv"), "--out", "rtmp://127.0.0.1:\(port)/live/x", "--video-codec", "copy"]
            },
        ]
    }

    // MARK: Outputs that cannot or must not be written

    /// A sample each writing command handles, and a big one whose output overflows a 64 KiB disk.
    static func sample(for command: Subcommand) -> SampleMedia {
        switch command {
        case .encode: .wav
        case .demux, .probe, .frame: .mp4
        case .mux: .h264
        case .remux, .hls: .mkv
        case .decode, .play: .m4a
        }
    }

    static func bigSample(for command: Subcommand) throws -> String {
        command == .encode ? try SampleMedia.bigWAV : try SampleMedia.bigMovie
    }

    // MARK: Standard input and standard output

    /// `-` as the input: bad bytes are refused as from a file; an intact stream is read whole; an
    /// MP4 whose index follows its data cannot be read from a pipe (exit 69, with the reason).
    static var standardInputs: [MatrixCase] {
        let kinds: [(String, MatrixCase.Outcome, @Sendable (Subcommand) throws -> Data)] = [
            ("empty", .exit(input), { _ in Data() }),
            ("random bytes", .exit(input), { _ in SampleMedia.randomBytes(count: 65_536) }),
            ("text", .exit(input), { _ in Data(String(repeating: "not media at all\n", count: 500).utf8) }),
            ("intact stream", .exit(0), { command in
                try Data(contentsOf: URL(fileURLWithPath: try (command == .encode ? SampleMedia.wav : command == .mux ? .h264 : .ts).path))
            }),
            ("MP4 with its index at the end", .exit(unsupported), { command in
                try Data(contentsOf: URL(fileURLWithPath: try (command == .encode ? SampleMedia.mov : .mp4).path))
            }),
        ]
        // play runs in real time (PipeInputTests plays from a pipe); frame seeks.
        return Subcommand.allCases.filter { $0 != .play && $0 != .frame }.flatMap { command in
            kinds.filter { !($0.0 == "MP4 with its index at the end" && command == .mux) }.map { kind, outcome, bytes in
                MatrixCase(name: "\(command) ← stdin: \(kind)", arrange: { folder in
                    let media: SampleMedia? = kind == "intact stream" ? (command == .encode ? .wav : command == .mux ? .h264 : .ts) : nil
                    var invocation = command.invocation(input: "-", media: media, outputFolder: folder.path)
                    invocation.standardInput = try bytes(command)
                    return invocation
                }, outcome: outcome)
            }
        }
    }

    /// `-` as the output: a run that fails writes nothing there (stdout stays empty) and leaves
    /// nothing in the folder; an intact input streams.
    static var standardOutputs: [MatrixCase] {
        let commands: [(Subcommand, SampleMedia, @Sendable (String) -> [String])] = [
            (.decode, .m4a, { ["decode", $0, "--out", "-"] }),
            (.demux, .mp4Faststart, { ["demux", $0, "--audio", "-"] }),
            (.encode, .wav, { ["encode", "--in", $0, "--out", "-"] }),
            (.remux, .mkv, { ["remux", $0, "-"] }),
            (.mux, .adts, { ["mux", "--audio", $0, "--out", "-"] }),
        ]
        return commands.flatMap { command, media, arguments in [
            MatrixCase(name: "\(command) → stdout ← random bytes", arrange: { folder in
                let input = folder.file(command.typicalInputName)
                try SampleMedia.randomBytes(count: 65_536).write(to: URL(fileURLWithPath: input))
                return .init(arguments: arguments(input), outputs: [])
            }, outcome: .exit(input)),
            MatrixCase(name: "\(command) → stdout ← intact \(media.rawValue)", arrange: { folder in
                .init(arguments: arguments(try copy(media.path, to: folder, as: media.fileName)), outputs: [])
            }, outcome: .exit(0)),
        ] }
    }

    static var outputFaults: [MatrixCase] {
        let writers = Subcommand.allCases.filter(\.writes)
        func row(_ command: Subcommand, _ name: String, _ outcome: MatrixCase.Outcome, extra: [String] = [],
                 _ arrange: @escaping @Sendable (TemporaryDirectory, String) throws -> MatrixCase.Invocation) -> MatrixCase {
            MatrixCase(name: "\(command) → \(name)\(extra.isEmpty ? "" : " " + extra.joined(separator: " "))", arrange: { d in
                let media = sample(for: command)
                var invocation = try arrange(d, try copy(media.path, to: d, as: media.fileName))
                invocation.arguments += extra
                return invocation
            }, outcome: outcome)
        }
        var cases: [MatrixCase] = []
        for command in writers {
            let media = sample(for: command)
            cases.append(row(command, "missing folder", .exit(output)) { d, input in
                var invocation = command.invocation(input: input, media: media, outputFolder: d.file("no/such/folder"))
                invocation.outputs = []
                return invocation
            })
            cases.append(row(command, "read-only folder", .exit(output)) { d, input in
                try FileManager.default.createDirectory(atPath: d.file("locked"), withIntermediateDirectories: false)
                var invocation = command.invocation(input: input, media: media, outputFolder: d.file("locked"))
                invocation.runner = .readOnlyOutputFolder
                return invocation
            })
            for extra in [[], ["--overwrite"]] {
                cases.append(row(command, "existing output", extra.isEmpty ? .exit(output) : .exit(0), extra: extra) { d, input in
                    let invocation = command.invocation(input: input, media: media, outputFolder: d.path)
                    for path in invocation.outputs { try Data("precious".utf8).write(to: URL(fileURLWithPath: path)) }
                    return invocation
                })
            }
            for (name, runner, extra) in [("full disk", MatrixCase.Runner.fullDisk, [String]()), ("full disk", .fullDisk, ["-y"]),
                                          ("file size limit", .fileSizeLimit, [])] {
                cases.append(row(command, name, .exit(output), extra: extra) { d, _ in
                    try FileManager.default.createDirectory(atPath: d.file("small"), withIntermediateDirectories: false)
                    var invocation = command.invocation(input: try bigSample(for: command), media: .mp4, outputFolder: d.file("small"))
                    if command == .encode { invocation.arguments += ["--bitrate", "256000"] }
                    if command == .frame { invocation.arguments += ["--width", "2000"] }  // a PNG larger than the disk
                    invocation.runner = runner
                    return invocation
                })
            }
        }
        // The output is the input, spelt differently (`./`): refused before anything is opened.
        let sameFile: [(Subcommand, SampleMedia, @Sendable (String, String) -> [String])] = [
            (.encode, .wav, { input, same in ["encode", "--in", input, "--out", same, "--format", "adts"] }),
            (.demux, .adts, { input, same in ["demux", input, "--audio", same] }),
            (.mux, .m4a, { input, same in ["mux", "--audio", input, "--out", same] }),
            (.remux, .mp4, { input, same in ["remux", input, same] }),
            (.decode, .wav, { input, same in ["decode", input, "--out", same] }),
        ]
        for (command, media, arguments) in sameFile {
            for extra in [[], ["-y"]] {
                cases.append(MatrixCase(name: "\(command) → output is the input \(extra.joined())", arrange: { d in
                    let input = try copy(media.path, to: d, as: media.fileName)
                    return .init(arguments: arguments(input, "\(d.path)/./\(media.fileName)") + extra, outputs: [])
                }, outcome: .exit(usage)))
            }
        }
        // Demux writes both or neither: an existing audio output must not leave a new video file.
        cases.append(row(.demux, "one of two outputs exists", .exit(output)) { d, input in
            try Data("precious".utf8).write(to: URL(fileURLWithPath: d.file("o.aac")))
            return Subcommand.demux.invocation(input: input, media: .mp4, outputFolder: d.path)
        })
        // Fragmented mode writes under the final name: an error must still remove it.
        cases.append(row(.remux, "full disk", .exit(output), extra: ["--fragmented"]) { d, _ in
            try FileManager.default.createDirectory(atPath: d.file("small"), withIntermediateDirectories: false)
            var invocation = Subcommand.remux.invocation(input: try SampleMedia.bigMovie, media: .mp4, outputFolder: d.file("small"))
            invocation.runner = .fullDisk
            return invocation
        })
        // A live HLS stream is published as it goes: an error must still remove what it wrote.
        cases.append(row(.hls, "full disk", .exit(output), extra: ["--live"]) { d, _ in
            try FileManager.default.createDirectory(atPath: d.file("small"), withIntermediateDirectories: false)
            var invocation = Subcommand.hls.invocation(input: try SampleMedia.bigMovie, media: .mp4, outputFolder: d.file("small"))
            invocation.runner = .fullDisk
            return invocation
        })
        cases.append(row(.remux, "existing output", .exit(output), extra: ["--fragmented"]) { d, input in
            try Data("precious".utf8).write(to: URL(fileURLWithPath: d.file("o.mp4")))
            return Subcommand.remux.invocation(input: input, media: .mkv, outputFolder: d.path)
        })
        return cases
    }
}
