internal import CFFmpeg

/// A rational number, as FFmpeg uses for time bases (`1/44100`, `1/90000`).
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    /// The number above the line.
    public var numerator: Int32
    /// The number below the line.
    public var denominator: Int32

    /// `numerator`/`denominator`, as given (not reduced).
    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ value: AVRational) { self.init(value.num, value.den) }
    var avValue: AVRational { AVRational(num: numerator, den: denominator) }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// A point or span on a media timeline: `value` ticks of `timeBase` seconds, exact like FFmpeg's
/// timestamps (no floating point until someone asks for `seconds`).
///
/// Every public time that is a place or length in the media (a presentation time, a seek target or
/// jump, a segment or fragment length, a keyframe spacing) is a `MediaTime`. Swift's `Duration`
/// is kept for wall-clock waits that have nothing to do with the media: network timeouts and
/// retry delays (`NetworkOptions`, `InputPolicy.networkTimeout`).
public struct MediaTime: Sendable, Comparable, CustomStringConvertible {
    /// The count of `timeBase` ticks.
    public var value: Int64
    /// The length of one tick, in seconds.
    public var timeBase: Rational

    /// `value` ticks of `timeBase` seconds each.
    public init(value: Int64, timeBase: Rational) {
        self.value = value
        self.timeBase = timeBase
    }

    /// A whole number of seconds (time base 1/1).
    public static func seconds(_ seconds: Int64) -> MediaTime { MediaTime(value: seconds, timeBase: Rational(1, 1)) }

    /// `seconds` (a user's `--start 5.123`, a player's position) as the nearest tick of
    /// `timeBase`: microseconds unless said, FFmpeg's `AV_TIME_BASE`.
    public init(seconds: Double, timeBase: Rational = Rational(1, 1_000_000)) {
        let ticks = seconds * Double(timeBase.denominator) / Double(timeBase.numerator)
        self.init(value: Int64(ticks.rounded()), timeBase: timeBase)
    }

    /// This time in seconds, as a floating-point number.
    public var seconds: Double { Double(value) * Double(timeBase.numerator) / Double(timeBase.denominator) }

    /// The same instant in another time base, rounded to the nearest tick (`av_rescale_q`).
    public func converted(to timeBase: Rational) -> MediaTime {
        MediaTime(value: av_rescale_q(value, self.timeBase.avValue, timeBase.avValue), timeBase: timeBase)
    }

    // In one time base the ticks compare as they are. av_compare_ts would multiply them by the
    // bases, and past 2^31 (after ~1 s at 1/44100) take av_rescale_rnd's slow path: ~100
    // instructions, several times per packet.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.timeBase == rhs.timeBase { return lhs.value == rhs.value }
        return av_compare_ts(lhs.value, lhs.timeBase.avValue, rhs.value, rhs.timeBase.avValue) == 0
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.timeBase == rhs.timeBase { return lhs.value < rhs.value }
        return av_compare_ts(lhs.value, lhs.timeBase.avValue, rhs.value, rhs.timeBase.avValue) < 0
    }

    /// The sum, in the finer of the two time bases (exact when one divides the other, as here always
    /// for 1/1_000_000 and a stream's base; else rounded to the nearest tick).
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let finer = Double(lhs.timeBase.numerator) / Double(lhs.timeBase.denominator)
            <= Double(rhs.timeBase.numerator) / Double(rhs.timeBase.denominator) ? lhs.timeBase : rhs.timeBase
        return MediaTime(value: lhs.converted(to: finer).value + rhs.converted(to: finer).value, timeBase: finer)
    }

    /// The difference, in the finer of the two time bases (as `+`).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        lhs + MediaTime(value: -rhs.value, timeBase: rhs.timeBase)
    }

    /// `h:mm:ss.mmm`, the way players show a position.
    public var description: String {
        let totalMilliseconds = Int64((seconds * 1000).rounded())
        let sign = totalMilliseconds < 0 ? "-" : ""
        let ms = abs(totalMilliseconds)
        let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        func pad(_ n: Int64, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(sign)\(h):\(pad(m, 2)):\(pad(s, 2)).\(pad(milli, 3))"
    }
}

extension MediaTime {
    /// Builds a time from an FFmpeg timestamp, which may be `AV_NOPTS_VALUE` ("unknown").
    init?(ffmpeg value: Int64, timeBase: Rational) {
        guard value != avp_nopts_value() else { return nil }
        self.init(value: value, timeBase: timeBase)
    }
}
