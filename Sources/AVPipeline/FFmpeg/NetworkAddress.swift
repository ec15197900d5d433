internal import CFFmpeg

/// A network input's address and what reading it may use: its own scheme and the protocols that
/// scheme is built on, nothing else (`https` → `https,tls,tcp`), so a remote playlist or a
/// redirect can never reach a local file, `data:` or another protocol. The one place that says
/// which FFmpeg options a network read gets: timeouts on every read, HTTP reconnection.
struct NetworkAddress: Sendable {
    /// The address as given (it names the input in errors).
    let url: String
    /// Its scheme, lowercased (`https`).
    let scheme: String

    /// What `parse` takes for a network address: a scheme followed by `://` (`OutputLocation`'s rule).
    static func looksLikeURL(_ text: String) -> Bool { OutputLocation.looksLikeURL(text) }

    /// Checks `url` is an address of a readable scheme that this FFmpeg has.
    init(_ url: String) throws(AVPipelineError) {
        Redaction.registerSecrets(of: url)
        guard Self.looksLikeURL(url), let end = url.firstRange(of: "://")?.lowerBound else {
            throw .inputPolicy(path: url, reason: "not a network address (scheme://host/…); a local file is opened by its path")
        }
        let scheme = url[..<end].lowercased()
        guard NetworkScheme(rawValue: scheme) != nil else {
            throw .inputPolicy(path: url, reason: "the '\(scheme)' protocol is not readable; network inputs are \(NetworkScheme.allCases.map(\.rawValue).sorted().joined(separator: ", "))")
        }
        guard let found = avio_find_protocol_name(url), String(cString: found) == scheme else {
            throw .unsupportedFormat("'\(url)': this FFmpeg has no '\(scheme)' protocol")
        }
        self.url = url
        self.scheme = scheme
    }

    /// The protocols the input, and everything it names, may be read through (the whitelist:
    /// the layers under the scheme included).
    /// `crypto` lets an HLS playlist's AES-128 segments be read (it only wraps the same scheme's
    /// protocols). The schemes and their protocols are `NetworkScheme`'s table.
    var protocols: Set<String> {
        guard let known = NetworkScheme(rawValue: scheme) else { return [] }
        return Set(known.protocols).union(known.isHTTP ? ["crypto"] : [])
    }

    /// What a playlist may name and its demuxer open directly: the input's own scheme (and, over
    /// HTTP, `crypto` for AES-128 segments, which wraps that scheme); never `tcp://` or `tls://` alone.
    var nestedProtocols: Set<String> { isHTTP ? [scheme, "crypto"] : [scheme] }

    /// Read over HTTP(S) (`NetworkScheme.isHTTP`).
    var isHTTP: Bool { NetworkScheme(rawValue: scheme)?.isHTTP ?? false }
    /// Read over RTMP(S) (`NetworkScheme.isRTMP`).
    var isRTMP: Bool { NetworkScheme(rawValue: scheme)?.isRTMP ?? false }

    /// A stream that exists only while it is sent: it cannot seek and is read from where it is
    /// when it is opened (a live HLS playlist is found live only once open: `InputContext.isLive`).
    var isLiveByScheme: Bool { NetworkScheme(rawValue: scheme)?.isLiveStream ?? false }

    /// The options of the input's own open, also handed to what it opens (HLS segments get
    /// `rw_timeout` from the playlist's context).
    ///
    /// `rw_timeout` bounds every read and write of every protocol (µs); HTTP's `timeout` is TCP's,
    /// connection included. RTMP's `timeout` means something else (listen for a connection), so it
    /// gets `rw_timeout` only. HTTP reconnects once, at once, when a connection drops or stalls
    /// mid-read (`reconnect`, `reconnect_streamed`, `reconnect_delay_max` 0), so a stall fails
    /// within two timeouts; `reconnect_on_network_error` is left off: it retries a failed *open*
    /// with growing delays, which would turn a silent server's one timeout into four. FFmpeg's
    /// HTTP follows at most 8 redirects (`MAX_REDIRECTS`, not an option in 5.1): a redirect loop
    /// ends there, and a redirect can leave the scheme's protocols only through the whitelist.
    func openOptions(timeout: Duration, whitelist: String, certificates: CertificateCheck) -> [String: String] {
        let microseconds = "\(max(1, timeout.microseconds))"
        var options = ["protocol_whitelist": whitelist, "rw_timeout": microseconds]
        options.merge(tlsOptions(certificates)) { $1 }
        switch scheme {
        case "http", "https":
            options["timeout"] = microseconds
            options["reconnect"] = "1"
            options["reconnect_streamed"] = "1"
            options["reconnect_delay_max"] = "0"
        case "srt":
            options["timeout"] = microseconds
        default:
            break
        }
        return options
    }

    /// What a TLS connection of this input, or one it names, is told about checking the server's
    /// certificate; nothing for a scheme without TLS.
    func tlsOptions(_ certificates: CertificateCheck) -> [String: String] {
        protocols.contains("tls") ? certificates.tlsOptions() : [:]
    }

    /// The typed error for a failed network open (`opening`) or read, naming the address and why.
    func error(_ rc: Int32, timeout: Duration, logged: String?, opening: Bool = true) -> AVPipelineError {
        if rc == avp_error_exit() { return .cancelled }
        if rc == avp_error_enomem() { return .outOfMemory }
        let reason: String
        switch avp_errno_of(rc) {
        case ETIMEDOUT, EAGAIN:
            reason = "timed out: no answer within \(timeout.secondsText) (--timeout)"
        case ECONNREFUSED:
            reason = "connection refused"
        case EHOSTUNREACH, ENETUNREACH:
            reason = "host unreachable"
        case ECONNRESET, EPIPE:
            reason = "the connection was lost"
        case EIO where opening && isHTTP && logged == nil:
            // What FFmpeg's HTTP returns, without a word, after its 8th redirect.
            reason = "input/output error: too many redirects? (FFmpeg follows at most 8)"
        case EIO where !opening:
            // HTTP reconnects (`openOptions`); FFmpeg's other protocols do not.
            reason = (isHTTP ? "the connection was lost and reconnecting failed" : "the connection was lost")
                + (logged.map { " (\($0))" } ?? "")
        case _ where protocols.contains("tls") && Self.isCertificateRefusal(logged):
            reason = CertificateCheck.advice + ": " + (logged ?? "")
        default:
            reason = logged.map { "\(ffmpegErrorText(rc)): \($0)" } ?? ffmpegErrorText(rc)
        }
        return .notReadable(path: url, reason: reason)
    }
}

extension NetworkAddress {
    /// Whether FFmpeg's log line says a TLS check failed: GnuTLS's "Peer certificate failed
    /// verification" and "The certificate's owner does not match hostname", OpenSSL's "certificate
    /// verify failed". Only "certificate": "hostname" alone is also a DNS failure's word.
    static func isCertificateRefusal(_ logged: String?) -> Bool {
        logged?.lowercased().contains("certificate") ?? false
    }
}

extension Duration {
    /// Whole microseconds (FFmpeg's timeouts), saturating.
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? Int64.max : product + attoseconds / 1_000_000_000_000
    }

    /// "10 s", "2.5 s".
    var secondsText: String {
        let value = Double(microseconds) / 1_000_000
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
