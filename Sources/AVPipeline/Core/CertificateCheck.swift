/// How a connection over TLS (`https://`, `rtmps://`, an HLS playlist's https segments, an
/// upload to `https://`) checks the server's certificate. FFmpeg checks nothing unless told to
/// (its `tls_verify` is off by default): avpipe tells it to, as a browser or curl would.
public enum CertificateCheck: Sendable, Equatable {
    /// The certificate must be signed by an authority the system trusts and name the host.
    case system
    /// The certificate must be signed by an authority in this PEM file (a private or self-signed
    /// server) and name the host.
    case authorities(file: String)
    /// Not checked (curl's `--insecure`): anyone on the way can read and change the stream.
    case none

    /// FFmpeg's `tls` protocol options for it, for a TLS connection only.
    func tlsOptions() -> [String: String] {
        switch self {
        case .system: ["tls_verify": "1"]
        case .authorities(let file): ["tls_verify": "1", "ca_file": file]
        case .none: ["tls_verify": "0"]
        }
    }

    /// What the user can do about a certificate that was not accepted.
    static let advice = "the server's certificate was not accepted (--ca-file FILE trusts a private authority; --insecure skips the check)"
}
