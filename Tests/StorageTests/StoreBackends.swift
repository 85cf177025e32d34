import Foundation
@testable import Realtime
import Testing

/// The two back-ends the same test bodies run against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Where one test's games live (a temporary directory, a fresh database), opened as often as
/// the test likes: a store closed and opened again must find everything.
struct StoreHome {
    let backend: Backend
    private let location: StoreLocation

    fileprivate init(backend: Backend, location: StoreLocation) {
        self.backend = backend
        self.location = location
    }

    func open() throws -> any GameStore {
        switch location {
        case .sqlite(let directory): return try SQLiteGameStore(directory: directory)
        case .sqliteInMemory: return try SQLiteGameStore.inMemory()
        case .postgres(let configuration): return try PostgresGameStore(configuration: configuration)
        }
    }

    /// `body` with a store opened here, closed when it returns.
    func withStore<T>(_ body: (any GameStore) throws -> T) throws -> T {
        let store = try open()
        defer { try? store.close() }
        return try body(store)
    }
}

/// A fresh home for `backend`, removed when `body` returns.
func withStoreHome<T>(_ backend: Backend, _ body: (StoreHome) throws -> T) throws -> T {
    switch backend {
    case .sqlite:
        try withTemporaryDirectory { try body(StoreHome(backend: backend, location: .sqlite(directory: $0))) }
    case .postgres:
        try withFreshPostgresDatabase { try body(StoreHome(backend: backend, location: .postgres($0))) }
    }
}

/// `body` with a store in a fresh home, closed afterwards.
func withFreshStore<T>(_ backend: Backend, _ body: (any GameStore) throws -> T) throws -> T {
    try withStoreHome(backend) { try $0.withStore(body) }
}
