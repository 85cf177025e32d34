import CLibWebSockets

/// HTTP answers written through lws from inside its callback, with lws's headroom in front.
enum LWSHTTPWrites {
    /// An HTTP answer: lws's common headers, the body unless `withBody` is false (HEAD), and the
    /// transaction completed (the connection kept alive for the next request).
    static func response(_ response: HTTPResponse, wsi: OpaquePointer, withBody: Bool = true) -> Int32 {
        let pre = OutFrame.headroom
        let headerSpace = 2048
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + headerSpace + response.body.count)
        defer { buffer.deallocate() }
        let start = buffer + pre
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let end = start + headerSpace
        let headers = response.contentType.withCString { type in
            lws_add_http_common_headers(wsi, response.status, type, lws_filepos_t(response.body.count), &cursor, end)
        }
        guard LWSCall.succeeded(headers), LWSCall.succeeded(lws_finalize_write_http_header(wsi, start, &cursor, end)) else {
            return -1
        }
        if withBody && !response.body.isEmpty {
            let body = buffer + pre + headerSpace
            response.body.withUnsafeBufferPointer { body.update(from: $0.baseAddress!, count: $0.count) }
            if LWSCall.status(wrote: lws_write(wsi, body, response.body.count, LWS_WRITE_HTTP_FINAL), of: response.body.count) < 0 {
                return -1
            }
        }
        return LWSCall.succeeded(lws_http_transaction_completed(wsi)) ? 0 : -1
    }

    /// The whole refusal (`HTTPResponse.closingBytes`) in one raw write.
    static func refusal(_ response: HTTPResponse, wsi: OpaquePointer) -> Int32 {
        let bytes = response.closingBytes
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: OutFrame.headroom + bytes.count)
        defer { buffer.deallocate() }
        let start = buffer + OutFrame.headroom
        bytes.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: $0.count) }
        return LWSCall.status(wrote: lws_write(wsi, start, bytes.count, LWS_WRITE_HTTP), of: bytes.count)
    }
}

/// How lws's return codes read, in one place: 0 is success for its calls, and a write
/// succeeded only if it took every byte. A callback returns -1 to close its connection.
enum LWSCall {
    static func succeeded(_ code: Int32) -> Bool { code == 0 }

    static func status(wrote written: Int32, of count: Int) -> Int32 { written >= 0 && Int(written) >= count ? 0 : -1 }
}
