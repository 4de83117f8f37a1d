/* pipeline/replace.h: a finished file moved to its name, over the file that had it.
 *
 * t2f_replace(from, to) does what rename(from, to) does, but where `to` names a file it swaps
 * the two names in one step (renameat2 RENAME_EXCHANGE) and then unlinks the replaced file
 * under `from`. Readers of `to` see the old file or the new one, never neither, as with rename.
 * Why: renaming over an existing file makes ext4 (auto_da_alloc) allocate the new file's blocks
 * and start writing it on the spot, and the replaced file, its blocks allocated by the same
 * rule one run earlier, is then freed at once: with the `discard` mount option each freed
 * extent waits for a discard. Over a 10.8 MB output on ext4 with `discard` this took 6–8 ms of
 * the rename, against 0.4 ms for the swap and unlink (docs/performance.md). The new file's data
 * then reaches the disk when the kernel writes it back, as for a file written in place: neither
 * way calls fsync, and a power loss before the write-back can leave `to` empty.
 *
 * An existing directory at `to` is swapped back and left as it was; rename then gives its
 * error (EISDIR). A file system without RENAME_EXCHANGE, an absent `to` or any other failure
 * of the swap falls back to rename. Should the unlink fail, the replaced file stays under
 * `from` (a ".NAME.XXXXXX" temp name here) and the result is still 0: `to` is in place.
 *
 * Returns 0 or -errno (rename's). Thread safety: as rename; async-signal-safe it is not.
 */
#ifndef T2F_REPLACE_H
#define T2F_REPLACE_H

int t2f_replace(const char *from, const char *to);

#endif
