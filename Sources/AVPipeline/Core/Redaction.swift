/// Keeps the secrets a URL carries out of every message: errors, notices, progress, FFmpeg's own
/// log lines. Terminals are screen-shared and logs are kept; an RTMP stream key or an SRT
/// passphrase printed there is a stream someone else can publish to.
///
/// One rule, applied to each `scheme://…` in a text:
/// - `user:password@` becomes `user:***@`;
/// - query parameters that carry secrets (`passphrase`, `password`, `pass`, `token`, `key`,
///   `secret`, `auth`, `sig`, `signature`, SRT's `streamid`, `X-Amz-Signature`/`X-Amz-Credential`,
///   and names ending in `token`, `key`, `secret` or `password`) become `name=***`;
/// - the stream key of an RTMP URL (the path after the application) becomes its first 4 characters
///   and `…` (fewer for a short key: never more than half of it).
///
/// Enough stays to tell which URL failed. Besides, the secrets of every URL the library opens (and
/// of those given to `registerSecrets(of:)`) are remembered, and replaced wherever they appear
/// alone in a message, as FFmpeg sometimes prints them outside their URL.
///
/// The library's errors are redacted in their `description`; the values they carry stay as given,
/// and `AVPipelineError.unredactedDescription` says it all, for code that asks on purpose.
public enum Redaction {
    /// `text` with every URL in it redacted, and every remembered secret replaced.
    public static func redact(_ text: String) -> String {
        let secrets = knownSecrets.withLock { $0 }
        guard secrets.isEmpty ? containsScheme(text) : true else { return text }
        var result = redactingURLs(in: text)
        for secret in secrets where result.contains(secret) {
            result = result.replacing(secret, with: hidden)
        }
        return result
    }

    /// `url` (one URL, nothing around it) with its secrets hidden.
    public static func redactURL(_ url: String) -> String {
        guard let parts = URLParts(url) else { return url }
        return parts.redacted
    }

    /// Remembers the secrets of `url` (its password, secret query values, RTMP stream key), so that
    /// they are hidden wherever they appear, in or out of a URL. Called for every URL the library
    /// opens; a program that prints other text holding them (its own configuration) may add more.
    public static func registerSecrets(of url: String) {
        guard let parts = URLParts(url) else { return }
        FFmpegLog.installCallback()  // FFmpeg's own lines about this URL are redacted too
        let found = parts.secrets.filter { $0.utf8.count >= minimumRememberedLength }
        guard !found.isEmpty else { return }
        knownSecrets.withLock { secrets in
            for secret in found where !secrets.contains(secret) { secrets.append(secret) }
            // Longest first: a secret that contains another is replaced whole.
            secrets.sort { $0.utf8.count > $1.utf8.count }
        }
    }

    /// What stands for a hidden value.
    static let hidden = "***"
    /// Shorter values are not searched for alone: a stream key "stream" would hide that word in
    /// every message (real keys and SRT passphrases are longer). In a URL every secret is hidden,
    /// whatever its length.
    static let minimumRememberedLength = 8

    private static let knownSecrets = LockedState<[String]>([])

    private static func containsScheme(_ text: String) -> Bool { text.contains("://") }

    /// Each `scheme://…` run in `text` redacted; the rest as it is.
    static func redactingURLs(in text: String) -> String {
        guard containsScheme(text) else { return text }
        let characters = Array(text)
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var index = 0
        while index < characters.count {
            guard let (start, end) = nextURL(in: characters, from: index) else {
                output.append(contentsOf: characters[index...])
                break
            }
            output.append(contentsOf: characters[index..<start])
            output += redactURL(String(characters[start..<end]))
            index = end
        }
        return output
    }

    /// The next URL at or after `from`: its scheme's first character up to the first character
    /// that ends a URL in prose (white space, a quote, a bracket), less the punctuation that ends a
    /// sentence or precedes FFmpeg's reason (`url: Connection refused`).
    private static func nextURL(in characters: [Character], from: Int) -> (Int, Int)? {
        var index = from
        while index + 2 < characters.count {
            if characters[index] == ":" && characters[index + 1] == "/" && characters[index + 2] == "/" {
                var start = index
                while start > from, isSchemeCharacter(characters[start - 1]) { start -= 1 }
                // The scheme starts with a letter.
                while start < index, !(characters[start].isASCII && characters[start].isLetter) { start += 1 }
                if start < index {
                    var end = index + 3
                    while end < characters.count, !endsURL(characters[end]) { end += 1 }
                    while end > index + 3, ".,:;!)]}".contains(characters[end - 1]) { end -= 1 }
                    return (start, end)
                }
                index += 3
                continue
            }
            index += 1
        }
        return nil
    }

    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    private static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || "'\"<>`()[]{}".contains(character)
    }
}

/// A URL cut where its secrets sit: `scheme://[user[:password]@]host[/path][?query]`. Nothing is
/// decoded or normalised: the parts are put back exactly as given, less the secrets.
struct URLParts {
    let scheme: Substring
    let user: Substring?
    let password: Substring?
    let host: Substring
    let path: Substring
    /// Everything after the first `?` (SRT's `streamid=#!::…` included: no fragment is split off).
    let query: Substring?

    init?(_ url: String) {
        guard let separator = url.firstRange(of: "://") else { return nil }
        scheme = url[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return nil }
        let rest = url[separator.upperBound...]
        let queryStart = rest.firstIndex(of: "?")
        let beforeQuery = rest[..<(queryStart ?? rest.endIndex)]
        query = queryStart.map { rest[rest.index(after: $0)...] }
        let pathStart = beforeQuery.firstIndex(of: "/") ?? beforeQuery.endIndex
        let authority = beforeQuery[..<pathStart]
        path = beforeQuery[pathStart...]
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            host = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                password = userInfo[userInfo.index(after: colon)...]
            } else {
                user = userInfo
                password = nil
            }
        } else {
            user = nil
            password = nil
            host = authority
        }
    }

    var isRTMP: Bool { scheme.lowercased().hasPrefix("rtmp") }

    /// The RTMP stream key: the path after its application (`/live/KEY`), nil when there is none.
    var streamKey: Substring? {
        guard isRTMP, path.count > 1 else { return nil }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { return nil }
        let key = afterSlash[afterSlash.index(after: slash)...]
        return key.isEmpty ? nil : key
    }

    /// Whether a query parameter of this name carries a secret.
    static func isSecretParameter(_ name: Substring) -> Bool {
        let name = name.lowercased()
        if secretParameters.contains(name) { return true }
        return ["token", "key", "secret", "password", "passwd"].contains { name.hasSuffix($0) }
            || name.contains("signature") || name.contains("credential")
    }

    static let secretParameters: Set<String> = [
        "passphrase", "password", "pass", "pwd", "token", "key", "secret", "auth", "sig", "signature", "streamid",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]

    /// The query's parameters: name and value, split at `&`.
    private var parameters: [(name: Substring, value: Substring?)] {
        guard let query else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            guard let equals = parameter.firstIndex(of: "=") else { return (parameter, nil) }
            return (parameter[..<equals], parameter[parameter.index(after: equals)...])
        }
    }

    /// The values this URL holds secret.
    var secrets: [String] {
        var found: [String] = []
        if let password, !password.isEmpty { found.append(String(password)) }
        if let streamKey { found.append(String(streamKey)) }
        for (name, value) in parameters where Self.isSecretParameter(name) {
            if let value, !value.isEmpty { found.append(String(value)) }
        }
        // FFmpeg may print a value decoded (`%40` as `@`).
        for secret in found {
            if let decoded = secret.removingPercentEncodingIfValid, decoded != secret { found.append(decoded) }
        }
        return found
    }

    /// The URL with its secrets hidden.
    var redacted: String {
        var result = String(scheme) + "://"
        if let user {
            result += user
            if password != nil { result += ":" + Redaction.hidden }
            result += "@"
        }
        result += host
        if let streamKey, !streamKey.hasSuffix("…") {  // not yet shortened: redacting twice changes nothing
            result += path[..<streamKey.startIndex]
            let shown = min(4, streamKey.count / 2)
            result += streamKey.prefix(shown) + "…"
        } else {
            result += path
        }
        if query != nil {
            result += "?" + parameters.map { name, value in
                guard let value else { return String(name) }
                return String(name) + "=" + (Self.isSecretParameter(name) ? Redaction.hidden : String(value))
            }.joined(separator: "&")
        }
        return result
    }
}

private extension String {
    /// The text with `%XX` sequences decoded, nil when it has none or they are not valid UTF-8.
    var removingPercentEncodingIfValid: String? {
        guard contains("%") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
