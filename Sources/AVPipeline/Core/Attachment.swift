internal import CFFmpeg

/// A file carried inside a Matroska file (a font an ASS subtitle track uses, a cover, notes):
/// its name, MIME type and bytes. FFmpeg presents each as an attachment "stream" without packets,
/// its bytes as the stream's extradata.
public struct Attachment: Sendable, Equatable {
    /// The attached file's name (Matroska's `FileName`, FFmpeg's `filename` tag).
    public let filename: String
    /// Its MIME type (`application/x-truetype-font`…), when stated.
    public let mimeType: String?
    /// What FFmpeg calls its content (`ttf`, `otf`…), when it has a name for it.
    public let codec: Codec?
    /// The file's bytes.
    public let bytes: [UInt8]
    /// The attachment's other tags (a title…), besides its name and MIME type.
    public let metadata: [String: String]

    /// An attachment from its parts.
    public init(filename: String, mimeType: String?, codec: Codec? = nil, bytes: [UInt8],
                metadata: [String: String] = [:]) {
        self.filename = filename
        self.mimeType = mimeType
        self.codec = codec
        self.bytes = bytes
        self.metadata = metadata
    }
}

extension Demuxer {
    /// The file's attachments (Matroska's fonts and other files), in track order; those without a
    /// name (which no muxer could write back) are not listed.
    public var attachments: [Attachment] { info.tracks.compactMap(attachment) }

    /// Attachment track `track`'s file; nil for another kind of track or a nameless attachment.
    func attachment(_ track: TrackInfo) -> Attachment? {
        guard track.kind == .attachment, let filename = track.metadata["filename"] else { return nil }
        let p = parameters[track.index].pointer.pointee
        let bytes = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        return Attachment(filename: filename, mimeType: track.metadata["mimetype"],
                          codec: track.codec.avID == AV_CODEC_ID_NONE ? nil : track.codec, bytes: bytes,
                          metadata: track.metadata.filter { $0.key != "filename" && $0.key != "mimetype" })
    }
}
