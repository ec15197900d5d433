/// The format of PCM audio: sample format, rate and channel layout.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// How each sample is stored (`s16`, `fltp`…).
    public var sampleFormat: SampleFormat
    /// Sample frames per second.
    public var sampleRate: Int
    /// Which channels there are, in which order.
    public var channelLayout: ChannelLayout

    /// A format from its three parts.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channelLayout: ChannelLayout) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
    }

    /// The number of channels (the layout's count).
    public var channelCount: Int { channelLayout.channelCount }

    /// The time base in which one tick is one sample frame.
    public var sampleTimeBase: Rational { Rational(1, Int32(sampleRate)) }

    public var description: String { "\(sampleFormat) \(sampleRate) Hz \(channelLayout)" }
}
