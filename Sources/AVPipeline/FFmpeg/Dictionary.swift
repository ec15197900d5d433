internal import CFFmpeg

/// Runs `body` with an `AVDictionary` built from `options`, frees it afterwards, and (unless told
/// otherwise) rejects any option FFmpeg did not consume: a typo must not pass silently. Calls that
/// leave options unconsumed when they fail (`avformat_open_input`) pass `rejectingUnused: false`.
@discardableResult
func withDictionary<R>(
    _ options: [String: String],
    rejectingUnused: Bool = true,
    _ body: (UnsafeMutablePointer<OpaquePointer?>) throws(AVPipelineError) -> R
) throws(AVPipelineError) -> R {
    var dictionary: OpaquePointer? = nil
    defer { av_dict_free(&dictionary) }
    for (key, value) in options {
        try check(av_dict_set(&dictionary, key, value, 0), "av_dict_set")
    }
    let result = try body(&dictionary)
    if rejectingUnused, let leftover = av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
        let key = String(cString: leftover.pointee.key)
        throw .invalidOption(name: key, value: String(cString: leftover.pointee.value),
                             reason: "FFmpeg does not know this option")
    }
    return result
}

/// Every entry of a (possibly nil) `AVDictionary`, such as a file's or a stream's tags.
func dictionaryEntries(_ dictionary: OpaquePointer?) -> [String: String] {
    var entries: [String: String] = [:]
    var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
    while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
        entries[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
        entry = next
    }
    return entries
}
