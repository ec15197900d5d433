import AVPipeline
import Testing
import TestSupport

/// The redaction rule, form by form: what is hidden, and that enough stays to tell which URL failed.
struct RedactionTests {
    @Test(arguments: [
        ("rtmp://bob:s3cret@host:1/live/key12345678", "rtmp://bob:***@host:1/live/key1…"),
        ("http://bob:s3cret@host/up/x.m3u8", "http://bob:***@host/up/x.m3u8"),
        ("srt://host:1?passphrase=verysecret&mode=caller", "srt://host:1?passphrase=***&mode=caller"),
        ("https://cdn.example/x.mp4?token=abc123&quality=hd", "https://cdn.example/x.mp4?token=***&quality=hd"),
        ("srt://host:9000?streamid=#!::r=live/cam,m=publish&latency=200", "srt://host:9000?streamid=***&latency=200"),
        ("https://b.s3.amazonaws.com/o.ts?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=f00d&X-Amz-Expires=60",
         "https://b.s3.amazonaws.com/o.ts?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60"),
        ("http://h/p?api_key=1&access_token=2&sig=3&auth=4&pass=5&password=6&secret=7&key=8&pwd=9",
         "http://h/p?api_key=***&access_token=***&sig=***&auth=***&pass=***&password=***&secret=***&key=***&pwd=***"),
        // A short key shows at most half of itself.
        ("rtmp://host/live/abcdef", "rtmp://host/live/abc…"),
        ("rtmps://live.example:443/app/sk_live_0123456789", "rtmps://live.example:443/app/sk_l…"),
        // Nothing secret: unchanged.
        ("rtmp://host/live", "rtmp://host/live"),
        ("http://host:8080/movie.mp4?start=10", "http://host:8080/movie.mp4?start=10"),
        ("https://user@host/x.m3u8", "https://user@host/x.m3u8"),
    ])
    func aURLKeepsItsShapeAndLosesItsSecrets(url: String, expected: String) {
        #expect(Redaction.redactURL(url) == expected)
        // Redacting twice changes nothing more: messages that quote messages stay readable.
        #expect(Redaction.redactURL(expected) == expected)
    }

    @Test func everyURLInAMessageIsRedactedAndTheRestIsKept() {
        let message = "'rtmp://u:pw1@h/live/streamkey99': failed (Connection to srt://h:1?passphrase=p4ss&mode=caller failed: I/O error)."
        #expect(Redaction.redact(message)
                == "'rtmp://u:***@h/live/stre…': failed (Connection to srt://h:1?passphrase=***&mode=caller failed: I/O error).")
        #expect(Redaction.redact("no address here: 3 of 4 packets") == "no address here: 3 of 4 packets")
        // FFmpeg's reason follows the URL after a colon; the colon is not part of the URL.
        #expect(Redaction.redact("Failed to open http://a:b@h/x.ts: refused") == "Failed to open http://a:***@h/x.ts: refused")
    }

    @Test func aRegisteredSecretIsHiddenWhereverItAppearsAlone() {
        let key = "registered-key-\(UInt32.random(in: 0...UInt32.max))"
        #expect(Redaction.redact("Unexpected stream \(key), expecting x").contains(key))
        Redaction.registerSecrets(of: "rtmp://host/live/\(key)")
        #expect(!Redaction.redact("Unexpected stream \(key), expecting x").contains(key))
        let password = "pa%40ssword-\(UInt32.random(in: 0...UInt32.max))"
        Redaction.registerSecrets(of: "http://bob:\(password)@host/x")
        // FFmpeg may print the password decoded.
        let decoded = password.replacingOccurrences(of: "%40", with: "@")
        #expect(!Redaction.redact("auth as \(decoded) refused").contains(decoded))
    }

    @Test func errorsDescribeTheirURLRedactedAndKeepItForCodeThatAsks() {
        let url = "rtmp://bob:s3cret@host:1/live/key12345678"
        let error = AVPipelineError.outputNotWritable(path: url, reason: "connection refused")
        #expect(error.description == "'rtmp://bob:***@host:1/live/key1…': cannot write output: connection refused")
        #expect(error.unredactedDescription.contains(url))
        guard case .outputNotWritable(let path, _) = error else { return }
        #expect(path == url)
        #expect("\(InputLocation(argument: url))" == "rtmp://bob:***@host:1/live/key1…")
        #expect(InputLocation(argument: url).name == url)
    }
}

/// Through the library: the error a network input fails with prints no password.
@Test func aDemuxerErrorAboutAURLHidesItsPassword() throws {
    let url = "http://bob:s3cretPW@127.0.0.1:\(try freePort())/x.mp4"
    do {
        _ = try Demuxer(InputLocation(argument: url))
        Issue.record("nothing listens there, yet it opened")
    } catch let error as AVPipelineError {
        #expect(!error.description.contains("s3cretPW") && error.description.contains("bob:***@"), "\(error)")
        #expect(error.unredactedDescription.contains("s3cretPW"))
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        replacing(target, with: replacement)
    }
}
