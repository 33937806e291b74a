import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlockedContactsController } from './api/blocked-contacts.controller';
import { BlockListService } from './application/block-list.service';
import { BlockedContact } from './domain/blocked-contact.entity';
import { BlockedContactsRepository } from './infrastructure/blocked-contacts.repository';

/** The company block list; campaigns and automations use BlockListService (or anti-join the table). */
@Module({
  imports: [TypeOrmModule.forFeature([BlockedContact])],
  controllers: [BlockedContactsController],
  providers: [BlockListService, BlockedContactsRepository],
  exports: [BlockListService],
})
export class BlockedContactsModule {}
