/// The tags that describe the content (title, artist, album, track, disc, date, genre, comment…), as
/// FFmpeg names them, without the container's own bookkeeping: what an encode carries from its input
/// to a new file, where the brands, the encoder's name and the gapless data are written afresh.
public enum DescriptiveTags {
    static let bookkeeping: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder", "encoded_by",
                                           "itunsmpb", "itunnorm", "handler_name", "vendor_id", "duration"]

    /// The descriptive tags among `tags` (a file's `MediaInfo.metadata`), the bookkeeping left out.
    public static func of(_ tags: [String: String]) -> [String: String] {
        tags.filter { !bookkeeping.contains($0.key.lowercased()) }
    }
}
