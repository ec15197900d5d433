/// Where an input is: a local path or a network address. The two are never confused: a path is
/// opened as a file whatever it contains (`concat:a|b`, `C:x`, `a:b.mp4` are file names), and a
/// URL only through its scheme's protocols (`Demuxer(url:)`).
public enum InputLocation: Sendable, Equatable, CustomStringConvertible {
    /// A local file (or `-` for standard input), read through the `file` protocol only.
    case path(String)
    /// A network address: `http://`, `https://`, `rtmp://`, `rtmps://`, `srt://`.
    case url(String)

    /// How a command-line argument is read: `scheme://…` (any scheme but `file`) is a URL, so an
    /// unreadable scheme is refused by name rather than looked for as a file; anything else is a
    /// path (write `./http://x` for a local file whose name starts like a URL).
    public init(argument: String) {
        if NetworkAddress.looksLikeURL(argument), !argument.lowercased().hasPrefix("file:") {
            self = .url(argument)
        } else {
            self = .path(argument)
        }
    }

    /// The argument as given, secrets and all (errors carry it so; their descriptions redact it).
    public var name: String {
        switch self {
        case .path(let path): path
        case .url(let url): url
        }
    }

    /// The name to print: a URL's password, secret parameters and stream key hidden (`Redaction`).
    public var description: String {
        switch self {
        case .path(let path): path
        case .url(let url): Redaction.redactURL(url)
        }
    }

    /// Whether it is a network address.
    public var isURL: Bool {
        if case .url = self { true } else { false }
    }

    var source: InputSource {
        switch self {
        case .path(let path): .file(path: path)
        case .url(let url): .url(url)
        }
    }
}

extension Demuxer {
    /// Opens `location`: a file as `init(path:options:)`, a URL as `init(url:options:)`.
    public convenience init(_ location: InputLocation, options: Options = .init()) throws {
        try self.init(source: location.source, options: options)
    }
}
