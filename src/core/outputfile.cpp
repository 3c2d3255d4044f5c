// OutputFile: an unbuffered QSaveFile for regular files (temporary file + rename), a plain unbuffered QFile
// for devices and pipes.
#include "outputfile.h"

#include <QFileInfo>
#include <QSaveFile>

// The device writers get: every write reaches the file whole, or the OutputFile is marked failed.
class OutputFileSink : public QIODevice
{
public:
    explicit OutputFileSink(OutputFile &owner)
        : m_owner(owner)
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 length) override
    {
        if (m_owner.m_failed || !m_owner.m_file)
            return -1;
        qint64 done = 0;
        while (done < length) {
            // A write cut short returns what fit without an error; the retry of the rest fails with errno's
            // reason ("File too large", "No space left on device").
            const qint64 n = m_owner.m_file->write(data + done, length - done);
            if (n <= 0) {
                const QString reason = m_owner.m_file->errorString();
                m_owner.fail(n < 0 && !reason.isEmpty() && m_owner.m_file->error() != QFileDevice::NoError
                                 ? reason
                                 : QStringLiteral("the file accepted no more data"));
                return -1;
            }
            done += n;
        }
        return length;
    }

private:
    OutputFile &m_owner;
};

OutputFile::OutputFile(const QString &path)
    : m_path(path)
{
}

OutputFile::~OutputFile()
{
    m_sink.reset();
    if (auto *save = dynamic_cast<QSaveFile *>(m_file.get()))
        save->cancelWriting();
}

QIODevice *OutputFile::device() const
{
    return m_sink.get();
}

void OutputFile::fail(const QString &reason)
{
    if (!m_failed)
        m_reason = reason;
    m_failed = true;
}

QString OutputFile::errorText() const
{
    return QStringLiteral("cannot write %1: %2").arg(m_path, m_reason);
}

bool OutputFile::open()
{
    const QFileInfo info(m_path);
    if (info.isDir()) {
        m_reason = QStringLiteral("it is a folder");
        return false;
    }
    // A device or a pipe cannot be replaced by renaming a file over it: write to it directly.
    const bool direct = info.exists() && !info.isFile();
    if (direct) {
        m_file = std::make_unique<QFile>(m_path);
    } else {
        auto save = std::make_unique<QSaveFile>(m_path);
        // Without this, a target in a folder we may not create files in would be written in place.
        save->setDirectWriteFallback(false);
        m_file = std::move(save);
    }
    if (!m_file->open(QIODevice::WriteOnly | QIODevice::Unbuffered)) {
        m_reason = m_file->errorString();
        m_file.reset();
        return false;
    }
    m_sink = std::make_unique<OutputFileSink>(*this);
    return true;
}

bool OutputFile::write(const QByteArray &bytes)
{
    return m_sink && m_sink->write(bytes) == bytes.size();
}

bool OutputFile::commit()
{
    if (!m_file) {
        if (m_reason.isEmpty())
            m_reason = QStringLiteral("the file was not opened");
        return false;
    }
    // The first failed write was kept here: check it ourselves rather than trust commit() alone.
    if (!m_failed && m_file->error() != QFileDevice::NoError)
        fail(m_file->errorString());
    const bool written = !m_failed;
    bool ok = written;
    if (auto *save = dynamic_cast<QSaveFile *>(m_file.get())) {
        if (!written)
            save->cancelWriting();
        else if (!(ok = save->commit()))
            m_reason = save->errorString();
    } else {
        m_file->close();
        if (ok && m_file->error() != QFileDevice::NoError) {
            ok = false;
            m_reason = m_file->errorString();
        }
    }
    m_sink.reset();
    m_file.reset();
    return ok;
}

bool OutputFile::writeWhole(const QString &path, const QByteArray &content, QString *reason)
{
    OutputFile file(path);
    const bool ok = file.open() && file.write(content) && file.commit();
    if (!ok && reason)
        *reason = file.reason();
    return ok;
}
