internal import CFFmpeg

/// What an encoder supports, read from its `AVCodec`.
enum EncoderCapabilities {
    static func sampleRates(_ codec: UnsafePointer<AVCodec>) -> [Int] {
        var supported: [Int] = []
        if var rates = avp_codec_sample_rates(codec) {
            while rates.pointee != 0 { supported.append(Int(rates.pointee)); rates += 1 }
        }
        return supported
    }

    static func layouts(_ codec: UnsafePointer<AVCodec>) -> [ChannelLayout] {
        var supported: [ChannelLayout] = []
        if var layout = avp_codec_channel_layouts(codec) {
            while layout.pointee.nb_channels != 0 { supported.append(ChannelLayout(layout.pointee)); layout += 1 }
        }
        return supported
    }

    static func sampleFormats(_ codec: UnsafePointer<AVCodec>) -> [SampleFormat] {
        var supported: [SampleFormat] = []
        if var format = avp_codec_sample_formats(codec) {
            while format.pointee != AV_SAMPLE_FMT_NONE {
                if let known = SampleFormat(rawFFmpegValue: format.pointee.rawValue) { supported.append(known) }
                format += 1
            }
        }
        return supported
    }

    /// The input's layout when the codec can code it, else one with the same channel count.
    static func layout(for input: ChannelLayout, codec: UnsafePointer<AVCodec>, name: String) throws -> ChannelLayout {
        let supported = layouts(codec)
        let wanted = input.specified
        if supported.isEmpty || supported.contains(wanted) { return wanted }
        if let sameCount = supported.first(where: { $0.channelCount == wanted.channelCount }) { return sameCount }
        throw AVPipelineError.unsupportedSampleFormat(
            "\(name) cannot code \(input.channelCount) channels (\(input)); it supports \(supported.map(\.description).joined(separator: ", "))")
    }

    /// `input` when the codec takes it, else the nearest rate it does.
    static func sampleRate(for input: Int, codec: UnsafePointer<AVCodec>) -> Int {
        let supported = sampleRates(codec)
        guard !supported.isEmpty, !supported.contains(input) else { return input }
        return supported.min(by: { abs($0 - input) < abs($1 - input) })!
    }
}
