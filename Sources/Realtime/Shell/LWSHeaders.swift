import CLibWebSockets

/// A request's headers and query arguments, copied out of lws (valid during its callback only).
enum LWSHeaders {
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The URL's query arguments as lws split them (`a=1`, `b=2`).
    private static func queryFragments(_ wsi: OpaquePointer) -> [String] {
        var fragments: [String] = []
        var buffer = [CChar](repeating: 0, count: 512)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) > 0 {
            fragments.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            index += 1
        }
        return fragments
    }

    static func queryString(_ wsi: OpaquePointer) -> String? {
        let fragments = queryFragments(wsi)
        return fragments.isEmpty ? nil : fragments.joined(separator: "&")
    }

    static func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        for pair in queryFragments(wsi) {
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            } else {
                result[pair] = ""
            }
        }
        return result
    }
}
