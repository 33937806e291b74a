import { Module } from '@nestjs/common';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config.service';
import { MediaController } from './api/media.controller';
import { MediaFilesService } from './application/media-files.service';
import { MediaUploadService } from './application/media-upload.service';
import { MediaStorage } from './domain/media-storage';
import { LocalMediaStorage } from './infrastructure/local-media.storage';
import { S3MediaStorage } from './infrastructure/s3-media.storage';

/**
 * Media uploads (POST /media/upload) and locally stored files (GET /media/files/{filename}).
 * Storage: S3-compatible when S3_BUCKET is set, DATA_DIR/media otherwise. Exports the
 * MediaStorage port for features that store media of their own.
 */
@Module({
  controllers: [MediaController],
  providers: [
    {
      provide: MediaStorage,
      inject: [AppConfig, Clock],
      useFactory: (config: AppConfig, clock: Clock): MediaStorage =>
        config.s3
          ? new S3MediaStorage(config.s3)
          : new LocalMediaStorage(config.dataDir, config.publicBaseUrl, clock),
    },
    MediaUploadService,
    MediaFilesService,
  ],
  exports: [MediaStorage, MediaUploadService, MediaFilesService],
})
export class MediaModule {}
