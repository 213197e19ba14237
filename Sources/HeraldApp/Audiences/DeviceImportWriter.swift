import Foundation
import HeraldPostgres
import HeraldSync

/// Stores an import's batches on a thread of its own while the request's thread reads the next
/// one and builds its statement: reading and PostgreSQL's work overlap, so an import goes at the
/// pace of the slower of the two rather than of both added up. One batch waits at most while one
/// is stored, so memory stays that of two batches whatever the file's size.
final class DeviceImportWriter: Sendable {
    /// A batch ready to run: its statement (`DeviceStore.upsertStatement`) and the rows it holds.
    struct Batch: Sendable {
        var statement: PostgresQuery
        var rows: Int
        /// The devices it stores (journeys entered on joining a segment read them).
        var tokens: [String]
    }

    private struct State {
        var waiting: Batch?
        var busy = false
        var closed = false
        var failure: (any Error)?
        var created = 0
        var stored = 0
    }

    private let state = ConditionLock(State())

    /// Starts the thread; `store` writes one batch and returns how many devices were new.
    init(store: @escaping @Sendable (Batch) throws -> Int) {
        Thread { [state] in
            while let batch = state.wait({ state -> Batch?? in
                if let batch = state.waiting {
                    state.waiting = nil
                    state.busy = true
                    return .some(batch)
                }
                return state.closed ? .some(nil) : nil
            }) {
                let outcome = Result { try store(batch) }
                state.withLock { state in
                    switch outcome {
                    case .success(let created):
                        state.created += created
                        state.stored += batch.rows
                    case .failure(let error):
                        state.failure = state.failure ?? error
                    }
                    state.busy = false
                }
                state.broadcast()
            }
        }.start()
    }

    /// Hands a batch over, once the one before has been taken; throws what stopped the writer.
    func submit(_ batch: Batch) throws {
        _ = try state.wait { state -> Bool? in
            if let failure = state.failure { throw failure }
            guard state.waiting == nil else { return nil }
            state.waiting = batch
            return true
        }
        state.broadcast()
    }

    /// Waits for every batch handed over to be stored and ends the thread: the devices created and
    /// stored. Throws what stopped the writer, unless `throwing` is false (an import already failed).
    @discardableResult
    func finish(throwing: Bool = true) throws -> (created: Int, stored: Int) {
        state.withLock { $0.closed = true }
        state.broadcast()
        return try state.wait { state -> (Int, Int)? in
            guard state.waiting == nil && !state.busy else { return nil }
            if throwing, let failure = state.failure { throw failure }
            return (state.created, state.stored)
        }
    }
}
