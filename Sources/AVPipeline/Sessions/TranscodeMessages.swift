/// The texts of a transcode's notices, warnings and refusals: the lines `avpipe encode` prints.
public enum TranscodeMessages {
    /// `start` at or past the input's end is refused (nothing written), as decoding from there would
    /// give an empty (or header-only) file and report success. An input that does not say how long
    /// it is gets the benefit of the doubt.
    public static func ensureStart(_ start: MediaTime?, within info: MediaInfo) throws {
        guard let start, let duration = info.duration, start >= duration else { return }
        throw AVPipelineError.invalidOption(name: "--start", value: seconds(start),
                                            reason: "the input ends at \(oneDecimal(duration.seconds)) s, before --start \(seconds(start))")
    }

    /// An input that ended before its index said (a partial download): the run used everything intact.
    public static func truncations(_ truncations: [Truncation], input: String) -> TranscodeEvent? {
        guard !truncations.isEmpty else { return nil }
        let tracks = truncations.map(\.description).joined(separator: "; ")
        return .warning("'\(input)' is incomplete (\(tracks)); everything intact was used (--strict refuses such files)")
    }

    /// A live input that ended (its publisher stopped) ended the run normally.
    public static func liveEnd(_ demuxer: Demuxer, input: String) -> TranscodeEvent? {
        demuxer.liveEnd.map { .notice("'\(input)': the live stream ended (\($0))") }
    }

    /// A decoder (of `kind`: audio, video) skipped damaged packets (the run still succeeds).
    public static func skippedPackets(_ statistics: DecoderStatistics, kind: String) -> TranscodeEvent? {
        let count = statistics.skippedPackets
        guard count > 0 else { return nil }
        let plural = count == 1 ? "" : "s"
        return .warning("skipped \(count) damaged \(kind) packet\(plural) (first \(statistics.firstSkip ?? "unknown"))")
    }

    /// A bit rate above what AAC-LC carries for the stream was lowered by the encoder: to what.
    static func lowered<PCM>(requested: Int?, encoder: AACEncoder<PCM>) -> TranscodeEvent? {
        encoder.loweredBitRateWarning(requested: requested).map { .warning($0) }
    }

    /// FFmpeg's encoder has a floor (FFmpeg 5.1: about 20–22 kb/s for 44.1 kHz stereo, 13 for mono,
    /// whatever less is asked): what was written when it is above the request. Its rate control
    /// otherwise lands within about 1 % of the request, so 3 % (and at least 1 kb/s, the unit the
    /// warning shows) separates the floor from ordinary variation.
    static func overshoot(requested: Int, bytes: Int, duration: MediaTime?) -> TranscodeEvent? {
        guard let seconds = duration?.seconds, seconds >= 1 else { return nil }
        let written = Int((Double(bytes) * 8 / seconds).rounded())
        guard written - requested >= max(1000, requested * 3 / 100) else { return nil }
        return .warning("asked for \(requested / 1000) kb/s, FFmpeg's AAC encoder wrote \(written / 1000) kb/s (its lowest rate for this stream)")
    }

    /// A time in seconds as typed: `20`, `20.5`, `0.123` (to the microsecond, no trailing zeros).
    private static func seconds(_ time: MediaTime) -> String {
        let micro = Int64((time.seconds * 1_000_000).rounded())
        let whole = "\(micro / 1_000_000)"
        guard micro % 1_000_000 != 0 else { return whole }
        var fraction = String(micro % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension AACEncoder {
    /// When `requested` is more than AAC-LC carries for this stream and the encoder lowered it,
    /// the warning that says to what (as `avpipe encode` and `record` print it); else nil.
    public func loweredBitRateWarning(requested: Int?) -> String? {
        guard let requested, bitRate < requested else { return nil }
        let format = encoderInputFormat
        return "\(requested / 1000) kb/s is more than AAC-LC carries for \(format.channelCount) channel(s) at \(format.sampleRate) Hz; using \(bitRate / 1000) kb/s"
    }
}
