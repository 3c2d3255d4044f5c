// An export file (a run report, an events CSV, a picture, a profile list) written whole or not at all. It is
// opened before the work starts, so a path that cannot be written is reported at once; it is written to a
// temporary file next to the target and renamed into place by commit(), so a reader never sees half a file
// and a full disk leaves nothing behind. Targets that are not regular files (/dev/stdout, a FIFO, /dev/full)
// are written directly, and every write to them is checked all the same.
//
// Why not QSaveFile alone: Qt 6.4's QSaveFile::commit() renames the file into place even when a write
// failed — with its default buffering the failed last flush goes unnoticed (a 0-byte report on a full disk),
// and unbuffered, a write cut short by the limit (part written, then EFBIG) sets no error at all. Here every
// write goes straight to the file, a short write is retried so the system names the reason, and the first
// failure is kept by OutputFile itself.
#pragma once

#include <QByteArray>
#include <QString>

#include <memory>

class QFileDevice;
class QIODevice;
class OutputFileSink;

class OutputFile
{
public:
    explicit OutputFile(const QString &path);
    ~OutputFile(); // without commit(), the temporary file is removed and the target left as it was
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    const QString &path() const { return m_path; }
    // False with reason() set when the path cannot be written (missing folder, no permission, a folder).
    bool open();
    // Where to write; writes to it are unbuffered, so write whole chunks (lines or blocks), not bytes.
    QIODevice *device() const;
    bool write(const QByteArray &bytes);
    // Renames the finished file into place (or flushes a device). False with reason() set, and nothing left
    // behind, when any write failed: the disk filled up, the file grew past a limit, the reader left.
    bool commit();

    // Why it failed: "No space left on device", "it is a folder".
    QString reason() const { return m_reason; }
    // "cannot write report.json: No space left on device"
    QString errorText() const;

    // The common case in one call: `content` as the whole file.
    static bool writeWhole(const QString &path, const QByteArray &content, QString *reason);

private:
    friend class OutputFileSink;
    void fail(const QString &reason);

    QString m_path;
    std::unique_ptr<QFileDevice> m_file;
    std::unique_ptr<OutputFileSink> m_sink; // what device() hands out: checks every write
    bool m_failed = false;
    QString m_reason;
};
