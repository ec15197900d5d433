/// The length an MPEG audio frame header (MP1/MP2/MP3) declares for its frame, so that a last frame
/// the end of the file cut short can be left out: FFmpeg's MP3 parser hands it over as a short
/// packet, unflagged (as its ADTS demuxer does with AAC). FFmpeg's own header reader is not public.
enum MPEGAudioFrameLength {
    /// Bit rates in kb/s by [MPEG-1 or not][layer 1, 2, 3][index 1…14].
    private static let bitRates: [[[Int]]] = [
        [[32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
         [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
         [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]],
        [[32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
         [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
         [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]],
    ]

    /// The frame's length in bytes from its 4-byte header, or nil for no valid header (or a
    /// free-format one, which does not say).
    static func of(_ header: some Collection<UInt8>) -> Int? {
        guard header.count >= 4 else { return nil }
        let b = Array(header.prefix(4))
        guard b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int(b[1] >> 3) & 3, layerBits = Int(b[1] >> 1) & 3
        let rateIndex = Int(b[2] >> 4), sampleIndex = Int(b[2] >> 2) & 3, padding = Int(b[2] >> 1) & 1
        guard version != 1, layerBits != 0, (1...14).contains(rateIndex), sampleIndex != 3 else { return nil }
        let mpeg1 = version == 3, layer = 4 - layerBits
        let sampleRate = [44_100, 48_000, 32_000][sampleIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let bitRate = bitRates[mpeg1 ? 0 : 1][layer - 1][rateIndex - 1] * 1000
        switch layer {
        case 1: return (12 * bitRate / sampleRate + padding) * 4
        case 2: return 144 * bitRate / sampleRate + padding
        default: return (mpeg1 ? 144 : 72) * bitRate / sampleRate + padding
        }
    }
}
