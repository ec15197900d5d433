internal import CFFmpeg

/// A named section of a file's timeline: a chapter of a film, an audiobook or a podcast.
public struct Chapter: Sendable, Equatable {
    /// Where the chapter begins, on the file's timeline.
    public var start: MediaTime
    /// Where the chapter ends, on the file's timeline.
    public var end: MediaTime
    /// The chapter's tags, as FFmpeg names them (`title` above all).
    public var metadata: [String: String]

    /// A chapter over `start`..<`end`; `title` is stored as its `title` tag.
    public init(start: MediaTime, end: MediaTime, title: String? = nil, metadata: [String: String] = [:]) {
        self.start = start
        self.end = end
        self.metadata = metadata
        if let title { self.metadata["title"] = title }
    }

    /// The chapter's `title` tag, if it has one.
    public var title: String? { metadata["title"] }

    init(_ chapter: UnsafePointer<AVChapter>) {
        let timeBase = Rational(chapter.pointee.time_base)
        start = MediaTime(value: chapter.pointee.start, timeBase: timeBase)
        end = MediaTime(value: chapter.pointee.end, timeBase: timeBase)
        metadata = dictionaryEntries(chapter.pointee.metadata)
    }

    /// The same chapter `offset` earlier (for an output whose timeline starts later than its input's).
    func shifted(back offset: MediaTime) -> Chapter {
        var copy = self
        copy.start = start - offset
        copy.end = end - offset
        return copy
    }
}
