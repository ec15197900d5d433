internal import CFFmpeg

/// Which channels a PCM stream has, in which order. `mask` follows FFmpeg's native order
/// (`AV_CH_*` bits); `nil` means only the count is known (e.g. a plain WAV with 8 channels).
public struct ChannelLayout: Hashable, Sendable, CustomStringConvertible {
    /// The number of channels.
    public let channelCount: Int
    /// FFmpeg's `AV_CH_*` bits in native order; nil when only the count is known.
    public let mask: UInt64?

    /// A layout from a channel count and, when known, FFmpeg's channel mask.
    public init(channelCount: Int, mask: UInt64?) {
        self.channelCount = channelCount
        self.mask = mask
    }

    /// FFmpeg's default layout for a channel count (1 → mono, 2 → stereo, 6 → 5.1 …).
    public static func `default`(channelCount: Int) -> ChannelLayout {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channelCount))
        defer { av_channel_layout_uninit(&layout) }
        return ChannelLayout(layout)
    }

    /// One channel.
    public static let mono = ChannelLayout.default(channelCount: 1)
    /// Front left and right.
    public static let stereo = ChannelLayout.default(channelCount: 2)
    /// 5.1: front left, right and centre, low-frequency effects, and two surround channels (FFmpeg's `5.1`).
    public static let surround51 = ChannelLayout.default(channelCount: 6)

    /// The same channels in a known order: unspecified layouts get FFmpeg's default order.
    public var specified: ChannelLayout { mask == nil ? .default(channelCount: channelCount) : self }

    public var description: String {
        withAVChannelLayout { layout in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                av_channel_layout_describe(layout, buffer.baseAddress, buffer.count) >= 0
                    ? String(cString: buffer.baseAddress!) : "\(channelCount) channels"
            }
        }
    }

    init(_ layout: AVChannelLayout) {
        channelCount = Int(layout.nb_channels)
        mask = layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : nil
    }

    /// Runs `body` with an `AVChannelLayout` for this layout, valid only during the call.
    @discardableResult
    func withAVChannelLayout<R, E: Error>(_ body: (UnsafePointer<AVChannelLayout>) throws(E) -> R) throws(E) -> R {
        var layout = AVChannelLayout()
        if let mask {
            av_channel_layout_from_mask(&layout, mask)
        } else {
            layout.order = AV_CHANNEL_ORDER_UNSPEC
            layout.nb_channels = Int32(channelCount)
        }
        defer { av_channel_layout_uninit(&layout) }
        return try body(&layout)
    }
}
