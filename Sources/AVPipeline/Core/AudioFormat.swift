/// The format of PCM audio: sample format, rate and channel layout.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleFormat: SampleFormat
    public var sampleRate: Int
    public var channelLayout: ChannelLayout

    public init(sampleFormat: SampleFormat, sampleRate: Int, channelLayout: ChannelLayout) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
    }

    public var channelCount: Int { channelLayout.channelCount }

    /// The time base in which one tick is one sample frame.
    public var sampleTimeBase: Rational { Rational(1, Int32(sampleRate)) }

    public var description: String { "\(sampleFormat) \(sampleRate) Hz \(channelLayout)" }
}
